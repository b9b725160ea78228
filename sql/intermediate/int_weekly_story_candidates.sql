{{ config(materialized='incremental') }}

-- The PRs that may make a story of a week (fct_weekly_stories picks among them), one row per
-- candidate story and PR. A story of a week takes PRs merged in that week and, where it says
-- so, earlier ones (never later ones, so a week's stories stay as they were told):
--   release        the week's release PRs (int_pull_request_releases) and its pre-release or
--                  dev-version chores (`Bump dev version`);
--   revert_reland  a reverted PR (up to story_history_weeks before), its reverts and its
--                  re-lands: later PRs, no reverts, that name the reverted PR or a revert
--                  (`#N`), or whose title is the reverted PR's once a reland word
--                  (seeds/story_words.csv) is left out;
--   series         (tag) a title tag (`[DistillationTrainer refactor]`, a `scope` of
--                  `type(scope):`, up to three words before a colon: `Build backend: ...`)
--                  that is distinctive (below) this week, with the PRs carrying
--                  it this week and in the story_window_weeks before; (marker) an `[i/N]`,
--                  `(i/N)` or `part i` marker: the PRs whose title names the same series before
--                  its marker (`Refactor CLI [2/N]`), or else by the same author with the same
--                  N, this week and in the window before; (links) PRs of this week and the window
--                  before that name each other (`#N` in the title or description, reverts
--                  aside): each connected group;
--   file_churn     a file removed (deleted, or only lines deleted, at least
--                  story_churn_min_lines) and later restored (added again, or changed by a PR
--                  whose title says it restores, seeds/story_words.csv) within
--                  story_window_weeks, with the later changes of it: in the weeks from the
--                  restoration to the end of that window;
--   shared_name    a name shared by two PRs of the week or more and distinctive: a word of
--                  their titles written as a name in one of them at least (a capital inside
--                  the word, a digit beside a letter, `_` or `.` inside: Qwen3.5, NCCL,
--                  AsyncGRPOTrainer, vllm_ascend), or only capitalised after the title's first
--                  word (Ascend) in story_plain_name_min_prs PRs or more, that is no type,
--                  verb, release, tag, area or stop word (seeds) nor the repository's name; a
--                  language and its version (Go 1.17); with the PRs writing another name of
--                  its platform (seeds/story_names.csv: NPU is Ascend).
-- Distinctive: k of the week's n PRs carry it (k >= 2), h of the H PRs of the
-- story_history_weeks weeks before, with h / H <= story_max_share and
-- k / n >= story_min_lift x (h + 1) / (H + 1).
-- `priority` orders the sources when a PR could join several: release 1, revert_reland 2,
-- series by tag 3, by marker 4, file_churn 5, series by links 6, shared_name 7.
--
-- Its steps, inlined here (ephemeral): int_weekly_story_settings, _words, _prs and _weeks (what
-- the stories are told from), int_weekly_story_reverts, _terms and _names, _series and _churn
-- (the candidates of each kind); this model adds the releases and keeps each PR once.

-- --- releases ---------------------------------------------------------------------------
with release_weeks as (
    select
        repo,
        week_start,
        string_agg(release_version, ', ' order by merged_at, number) filter (where is_release) as versions
    from {{ ref('int_weekly_story_prs') }} prs
    semi join {{ ref('int_weekly_story_weeks') }} reported using (repo, week_start)
    group by repo, week_start
    having bool_or(is_release)
),

release_candidates as (
    select
        p.repo, p.week_start as story_week, 'release' as kind, 1 as priority,
        'release:' || string_split(w.versions, ', ')[1] as story_key, w.versions as evidence, p.number,
        case when p.is_release then 'release' else 'release_chore' end as role
    from {{ ref('int_weekly_story_prs') }} p
    join release_weeks w using (repo, week_start)
    where p.is_release or p.is_release_pre
),

candidates as (
    select * from release_candidates
    union all
    select * from {{ ref('int_weekly_story_reverts') }} revert_candidates
    union all
    select * from {{ ref('int_weekly_story_names') }} tag_candidates
    union all
    select * from {{ ref('int_weekly_story_series') }} marker_candidates
    union all
    select * from {{ ref('int_weekly_story_churn') }} churn_candidates
)

-- a PR joins a candidate once, in its first role (a re-land that also names the revert, ...);
-- a story's evidence is one spelling for all its PRs
select
    c.repo,
    c.story_week as week_start,
    c.kind,
    min(c.priority) as priority,
    c.story_key,
    min(min(c.evidence)) over (partition by c.repo, c.story_week, c.story_key) as evidence,
    c.number,
    p.week_start as merged_week,
    p.merged_at,
    p.importance,
    min(c.role) as role
from candidates c
join {{ ref('int_weekly_story_prs') }} p using (repo, number)
where p.week_start <= c.story_week
group by c.repo, c.story_week, c.kind, c.story_key, c.number, p.week_start, p.merged_at, p.importance
