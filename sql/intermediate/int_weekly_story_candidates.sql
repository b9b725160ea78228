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
with recursive settings as (
    select
        cast(max(value) filter (where name = 'story_window_weeks') as integer) as window_weeks,
        cast(max(value) filter (where name = 'story_history_weeks') as integer) as history_weeks,
        max(value) filter (where name = 'story_min_lift') as min_lift,
        max(value) filter (where name = 'story_max_share') as max_share,
        max(value) filter (where name = 'story_churn_min_lines') as churn_min_lines,
        max(value) filter (where name = 'story_churn_max_changes') as churn_max_changes,
        max(value) filter (where name = 'story_plain_name_min_prs') as plain_name_min_prs
    from {{ ref('thresholds') }}
),

prs as (
    select
        p.repo, p.week_start, p.number, p.merged_at, p.title, p.author, p.importance, p.areas, p.is_release,
        p.release_version, p.reverts_number, coalesce(r.is_release_pre, false) as is_release_pre,
        c.referenced_numbers
    from (
        select
            repo, week_start, number, merged_at, title, author, importance, areas, is_release,
            release_version, reverts_number
        from {{ ref('fct_pull_requests') }}
        {{ in_run_weeks(back="(select history_weeks from settings)") }}
    ) p
    left join (
        select repo, number, is_release_pre from {{ ref('int_pull_request_releases') }}
        {{ in_run_weeks(back="(select history_weeks from settings)") }}
    ) r using (repo, number)
    join (
        select repo, number, referenced_numbers from {{ ref('int_pull_requests_classified') }}
        {{ in_run_weeks(back="(select history_weeks from settings)") }}
    ) c using (repo, number)
),

-- the weeks whose stories this run tells: those with a PR
reported as (
    select distinct repo, week_start from prs
    {{ in_run_weeks(repo=false) }}
),

words as (
    select
        (select list(distinct lower(word)) from {{ ref('story_words') }} where role = 'restore') as restore_words,
        (select list(distinct lower(word)) from {{ ref('story_words') }} where role = 'reland') as reland_words
),

-- --- releases ---------------------------------------------------------------------------
release_weeks as (
    select
        repo,
        week_start,
        string_agg(release_version, ', ' order by merged_at, number) filter (where is_release) as versions
    from prs
    semi join reported using (repo, week_start)
    group by repo, week_start
    having bool_or(is_release)
),

release_candidates as (
    select
        p.repo, p.week_start as story_week, 'release' as kind, 1 as priority,
        'release:' || string_split(w.versions, ', ')[1] as story_key, w.versions as evidence, p.number,
        case when p.is_release then 'release' else 'release_chore' end as role
    from prs p
    join release_weeks w using (repo, week_start)
    where p.is_release or p.is_release_pre
),

-- --- reverts and re-lands -----------------------------------------------------------------
reverts as (
    select
        r.repo,
        r.number,
        r.merged_at,
        -- a revert of a revert goes back to the change first reverted
        coalesce(o.reverts_number, r.reverts_number) as root
    from prs r
    left join prs o on o.repo = r.repo and o.number = r.reverts_number
    where r.reverts_number is not null
),

roots as (
    select
        v.repo, v.root, min(v.merged_at) as first_revert_at, list(v.number) as revert_numbers,
        p.merged_at as root_merged_at, p.title as root_title,
        regexp_replace(lower(p.title), '[^a-z0-9]+', '', 'g') as root_key
    from reverts v
    join prs p on p.repo = v.repo and p.number = v.root
    group by v.repo, v.root, p.merged_at, p.title
),

-- the numbers a re-land can name: the reverted PR and its reverts
chain_numbers as (
    select repo, root, root as named from roots
    union
    select repo, root, number from reverts semi join roots using (repo, root)
),

-- a PR's title with reland words and everything but letters and digits left out
title_keys as (
    select p.repo, p.number, regexp_replace(lower(p.title), '[^a-z0-9]+', '', 'g') as title_key
    from prs p
    union
    select
        repo, number,
        regexp_replace(array_to_string(list_filter(words, lambda x: not list_contains(reland_words, x)), ''),
            '[^a-z0-9]+', '', 'g')
    from (
        select p.repo, p.number, regexp_split_to_array(lower(p.title), '[^a-z0-9-]+') as words, w.reland_words
        from prs p
        cross join words w
    ) t
    where list_has_any(words, reland_words)
),

relands as (
    select distinct c.repo, c.root, c.number
    from (
        select n.repo, n.root, x.number
        from chain_numbers n
        join (select repo, number, unnest(referenced_numbers) as named from prs) x using (repo, named)
        union
        select t.repo, t.root, k.number
        from roots t
        join title_keys k on k.repo = t.repo and k.title_key = t.root_key
    ) c
    join roots o using (repo, root)
    join prs q on q.repo = c.repo and q.number = c.number
    where q.merged_at > o.first_revert_at and q.reverts_number is null and q.number <> o.root
),

chain_members as (
    select repo, root, root as number, 'reverted' as role from roots
    union all
    select repo, root, number, 'revert' from reverts semi join roots using (repo, root)
    union all
    select repo, root, number, 'reland' from relands
),

revert_candidates as (
    select
        m.repo, w.week_start as story_week, 'revert_reland' as kind, 2 as priority,
        'revert_reland:' || m.root as story_key, o.root_title as evidence, m.number, m.role
    from chain_members m
    join roots o using (repo, root)
    join prs p using (repo, number)
    -- a week with a revert or a re-land of the chain tells it, with its PRs up to that week
    join (
        select distinct c.repo, c.root, q.week_start
        from chain_members c
        join prs q using (repo, number)
        semi join reported using (repo, week_start)
        where c.role <> 'reverted'
    ) w
        on w.repo = m.repo
        and w.root = m.root
        and p.week_start between w.week_start - to_weeks((select history_weeks from settings)) and w.week_start
),

-- --- title tags and names ----------------------------------------------------------------
titles as (
    select
        repo, week_start, number, author, title,
        -- the title after its emoji, its leading [tags] and a `type(scope)!:` prefix
        regexp_replace(
            regexp_replace(title, '^[^A-Za-z0-9\[(]*(:[a-z0-9_+-]+:\s*)?((\[[^\]]*\]|\([^)]*\))\s*)*', ''),
            '^[A-Za-z]+(\([^)]*\))?!?\s*:\s*', ''
        ) as rest,
        regexp_extract(regexp_replace(title, '^[^A-Za-z0-9\[(]*(\[[^\]]*\]\s*)*', ''), '^[A-Za-z]+\(([^)]+)\)!?\s*:', 1)
            as scope,
        -- a module or topic of up to three words before a colon (`New defaults: ...`), not
        -- a gitmoji code (`:arrow_up: ...`)
        case when not regexp_matches(title, '^\s*:[a-z0-9_+-]+:') then
            regexp_extract(rest, '^([A-Za-z][\w.-]*( [\w.-]+){0,2}) ?: ', 1)
        end as prefix
    from prs
),

tags as (
    select
        t.repo, t.week_start, t.number, 'tag' as term_kind,
        regexp_replace(lower(trim(tag)), '\s+', ' ', 'g') as term,
        trim(tag) as spelling,
        -- a one-word tag in plain lower case is a category (`[env]`, `[cfg]`): a series tag has
        -- several words or is written as a name
        case
            when contains(trim(tag), ' ')
                 or regexp_matches(trim(tag), '^.+[A-Z]|[A-Za-z]\d|\d[A-Za-z]|[A-Za-z0-9][_.][A-Za-z0-9]') then 2
            else 0
        end as shape
    from titles t, unnest(list_concat(
        case when contains(t.title, '[') then flatten(list_transform(
            regexp_extract_all(t.title, '\[([^\]]+)\]', 1), lambda g: string_split(g, ',')
        )) else [] end,
        string_split(t.scope, ','),
        case when coalesce(t.prefix, '') <> '' then [t.prefix] else [] end
    )) as u(tag)  -- noqa: AL01, AL05, LT01
),

-- each word of the title's rest with what stands before it, to tell a name from a sentence's
-- first word
title_words as (
    select
        t.repo, t.week_start, t.number,
        -- chr(1) marks the start
        unnest(regexp_extract_all(chr(1) || t.rest, '([^A-Za-z0-9_.+]+)[A-Za-z0-9][A-Za-z0-9_.+]*', 1)) as before,
        unnest(regexp_extract_all(chr(1) || t.rest, '[^A-Za-z0-9_.+]+([A-Za-z0-9][A-Za-z0-9_.+]*)', 1)) as word
    from titles t
),

names as (
    select
        repo, week_start, number, 'name' as term_kind,
        lower(trim(word, '.+')) as term,
        trim(word, '.+') as spelling,
        -- 2: written as a name (a capital inside, a digit beside a letter, `_` or `.` inside);
        -- 1: only capitalised after the title's first word (Ascend, but also User); 0: neither
        -- (most words: lower case, no digit, `_` or `.`, told without a pattern)
        case
            when lower(word) = word and not contains(word, '_') and not contains(word, '.')
                 and not regexp_matches(word, '[0-9]') then 0
            when regexp_matches(trim(word, '.+'), '^.+[A-Z]|[A-Za-z]\d|\d[A-Za-z]|[A-Za-z0-9][_.][A-Za-z0-9]') then 2
            when regexp_matches(word, '^[A-Z][a-z]')
                 and not starts_with(before, chr(1)) and not regexp_matches(before, '[:.!?]\s*$') then 1
            else 0
        end as shape
    from title_words
),

-- a language and a version (`Go 1.17`, `Rust 1.75`, `Python 3.13`): a toolchain, a name
toolchains as (
    select
        t.repo, t.week_start, t.number, 'name' as term_kind,
        lower(v.language) || ' ' || v.version as term, v.language || ' ' || v.version as spelling, 2 as shape
    from titles t,
        lateral (
            select
                regexp_extract(unnest(regexp_extract_all(t.title, '(?i)\b[a-z+#]+\s+v?\d+\.\d+')), '^\S+')
                    as language,
                regexp_extract(unnest(regexp_extract_all(t.title, '(?i)\b[a-z+#]+\s+v?\d+\.\d+')), '(\d+\.\d+)$', 1)
                    as version
        ) v
    where lower(v.language) in (select lower(tag) from {{ ref('scope_tags') }} where kind = 'language')
),

terms as (
    select * from tags
    union all
    select * from names
    union all
    select * from toolchains
),

-- words that are no name: type words, tags, area aliases, stop and release words, and (for
-- words of a title, not tags) verbs
not_names as (
    select term, bool_or(for_tags) as for_tags
    from (
        select lower(alias) as term, true as for_tags from {{ ref('change_type_aliases') }}
        union all
        select lower(tag), true from {{ ref('scope_tags') }}
        union all
        select lower(alias), true from {{ ref('area_aliases') }}
        union all
        select lower(word), true from {{ ref('story_words') }} where role = 'stop'
        union all
        select lower(word), true from {{ ref('release_words') }}
        union all
        select lower(verb), false from {{ ref('title_verbs') }}
        union all
        select 'breaking', true
    ) w
    group by term
),

week_counts as (
    select
        repo,
        week_start,
        count(*) as n,
        sum(count(*)) over (
            partition by repo order by week_start
            range between to_weeks((select history_weeks from settings)) preceding and interval 1 day preceding
        ) as history_n
    from prs
    group by repo, week_start
),

-- the terms of a reported week that one of its PRs writes as a name (and no word of the seeds
-- above), then how many of its PRs carry them, written so or not
named_keys as (
    select distinct t.repo, t.week_start, t.term_kind, t.term
    from terms t
    semi join reported using (repo, week_start)
    anti join not_names n on n.term = t.term and (n.for_tags or t.term_kind = 'name')
    where t.shape > 0
),

week_terms as (
    select
        repo, week_start, term_kind, term,
        count(distinct number) as k,
        max(shape) as shape,
        -- the spelling most PRs write as a name, the first in order on a tie
        first(spelling order by shape desc, spelling_prs desc, spelling asc) as spelling
    from (
        select *, count(*) over (partition by repo, week_start, term_kind, term, spelling) as spelling_prs
        from terms
        semi join named_keys using (repo, week_start, term_kind, term)
    ) s
    group by repo, week_start, term_kind, term
),

-- the terms two PRs of a reported week share (a word only capitalised needs more PRs than one
-- written as a name); numbers, versions, sizes, `[i/N]` markers and the repository's name are
-- none
shared_terms as (
    select t.*
    from week_terms t
    where t.k >= 2 and (t.shape = 2 or (t.shape = 1 and t.k >= (select plain_name_min_prs from settings)))
      and t.term <> ''
      and not regexp_matches(t.term, '^v?[\d\s/.x+-]*$|^\d+[a-z]{0,2}$|^(\d+|n)\s*/\s*(\d+|n)$|^part\s*\d')
      and regexp_replace(t.term, '[-_. ]', '', 'g') <> regexp_replace(lower(string_split(t.repo, '/')[2]), '[-_. ]', '', 'g')
),

-- the areas of the repository's PRs, which a name or a one-word tag must not be
area_weeks as (
    select distinct repo, week_start, regexp_replace(lower(area), '[-_. ]', '', 'g') as area_key
    from prs, unnest(areas) as u(area)  -- noqa: AL01, AL05, LT01
),

area_terms as (
    select distinct s.repo, s.week_start, s.term_kind, s.term
    from shared_terms s
    join area_weeks a
        on a.repo = s.repo
        and a.area_key = regexp_replace(s.term, '[-_. ]', '', 'g')
        and a.week_start between s.week_start - to_weeks((select history_weeks from settings)) and s.week_start
    where s.term_kind = 'name' or not contains(s.term, ' ')
),

shared_keys as (
    select distinct repo, term_kind, term from shared_terms
),

-- the PRs of every week that carry a shared term, however written
term_history as (
    select
        repo, week_start, term_kind, term,
        sum(count(distinct number)) over (
            partition by repo, term_kind, term order by week_start
            range between to_weeks((select history_weeks from settings)) preceding and interval 1 day preceding
        ) as history_k
    from terms
    semi join shared_keys using (repo, term_kind, term)
    group by repo, week_start, term_kind, term
),

distinctive as (
    select
        s.repo, s.week_start, s.term_kind, s.term, s.spelling
    from shared_terms s
    join term_history h using (repo, week_start, term_kind, term)
    join week_counts c using (repo, week_start)
    cross join settings st
    anti join area_terms using (repo, week_start, term_kind, term)
    where coalesce(h.history_k, 0) <= st.max_share * coalesce(c.history_n, 0)
      and s.k * (coalesce(c.history_n, 0) + 1) >= st.min_lift * (coalesce(h.history_k, 0) + 1) * c.n
),

tag_candidates as (
    select
        t.repo, d.week_start as story_week, 'series' as kind, 3 as priority,
        'series:' || d.term as story_key, d.spelling as evidence, t.number, 'member' as role
    from distinctive d
    join terms t
        on t.repo = d.repo
        and t.term_kind = d.term_kind
        and t.term = d.term
        and t.week_start between d.week_start - to_weeks((select window_weeks from settings)) and d.week_start
    where d.term_kind = 'tag'
),

-- a story's name also takes the PRs that name its platform otherwise, however written, and
-- is one story with them (seeds/story_names.csv: `npu ci` names Ascend)
name_aliases as (
    select distinct lower(a.word) as word, lower(b.word) as term, lower(a.name) as name
    from {{ ref('story_names') }} a
    join {{ ref('story_names') }} b on lower(b.name) = lower(a.name)
),

name_candidates as (
    select distinct
        t.repo, d.week_start as story_week, 'shared_name' as kind, 7 as priority,
        'shared_name:' || coalesce(n.name, d.term) as story_key, d.spelling as evidence, t.number,
        'member' as role
    from distinctive d
    left join (select distinct term, name from name_aliases) n on n.term = d.term
    join terms t
        on t.repo = d.repo and t.week_start = d.week_start and t.term_kind = d.term_kind
        and (t.term = d.term or (t.term, d.term) in (select (word, term) from name_aliases))
    where d.term_kind = 'name'
),

-- --- [i/N] series -------------------------------------------------------------------------
markers as (
    select
        repo, week_start, number, author,
        regexp_extract(title, '(?i)^(.*?)[\s,:;-]*(?:[\[(]\s*\d+\s*/\s*(?:\d+|n)\s*[\])]|\bpart\s*\d+)', 1) as before,
        lower(regexp_extract(title, '(?i)[\[(]\s*\d+\s*/\s*(\d+|n)\s*[\])]|\bpart\s*\d+\s*of\s*(\d+)', 1)) as total
    from prs
    where regexp_matches(title, '(?i)[\[(]\s*\d+\s*/\s*(\d+|n)\s*[\])]|\bpart\s*\d+\b')
),

marker_keys as (
    select
        *,
        trim(regexp_replace(before, '^[^A-Za-z0-9]+|[\s,:;(\[-]+$', '', 'g')) as series_name
    from markers
),

keyed_markers as (
    select
        *,
        case
            when length(regexp_replace(series_name, '[^A-Za-z]', '', 'g')) >= 3
                then 'series:' || lower(series_name)
            else 'series:@' || lower(author) || ' ' || coalesce(nullif(total, ''), '?')
        end as story_key,
        case
            when length(regexp_replace(series_name, '[^A-Za-z]', '', 'g')) >= 3 then series_name
            else '@' || author
        end as series_evidence
    from marker_keys
),

marker_candidates as (
    select
        m.repo, w.week_start as story_week, 'series' as kind, 4 as priority, m.story_key,
        m.series_evidence as evidence, m.number, 'member' as role
    from keyed_markers m
    -- the weeks with a PR of the series, and the series' PRs of their window
    join (
        select distinct repo, story_key, week_start from keyed_markers semi join reported using (repo, week_start)
    ) w
        on w.repo = m.repo
        and w.story_key = m.story_key
        and m.week_start between w.week_start - to_weeks((select window_weeks from settings)) and w.week_start
),

-- --- PRs that name each other ---------------------------------------------------------------
link_edges as (
    select a.repo, a.number as a, b.number as b, a.week_start as week_a, b.week_start as week_b
    from (select repo, number, week_start, reverts_number, unnest(referenced_numbers) as referenced from prs) a
    join prs b on b.repo = a.repo and b.number = a.referenced
    where b.number <> a.number
      and a.reverts_number is distinct from b.number
      and abs(a.week_start - b.week_start) <= 7 * (select window_weeks from settings)
),

-- an edge belongs to each reported week whose window holds both PRs
edge_weeks as (
    select e.repo, w.week_start as story_week, e.a, e.b
    from link_edges e
    join reported w
        on w.repo = e.repo
        and w.week_start between greatest(e.week_a, e.week_b)
            and least(e.week_a, e.week_b) + to_weeks((select window_weeks from settings))
),

both_ways as (
    select repo, story_week, a, b from edge_weeks
    union
    select repo, story_week, b, a from edge_weeks
),

reach (repo, story_week, node, label) as (
    select repo, story_week, a as node, a as label from both_ways
    union
    select r.repo, r.story_week, e.b, r.label
    from reach r
    join both_ways e on e.repo = r.repo and e.story_week = r.story_week and e.a = r.node
),

link_candidates as (
    select
        repo, story_week, 'series' as kind, 6 as priority,
        'series:#' || min(label) as story_key, '#' || min(label) as evidence, node as number,
        'member' as role
    from reach
    group by repo, story_week, node
),

-- --- a file removed and restored --------------------------------------------------------------
file_changes as (
    select f.repo, f.week_start, f.number, f.path, f.additions, f.deletions, f.change_type, p.merged_at, p.title
    from {{ ref('int_pull_request_files') }} f
    join prs p using (repo, number)
    where not f.is_generated
    {{ in_run_weeks(back="2 * (select window_weeks from settings)", of='f', keyword='and') }}
),

removals as (
    select c.*
    from file_changes c
    cross join settings s
    where c.change_type = 'DELETED' or (c.additions = 0 and c.deletions >= s.churn_min_lines)
),

restorations as (
    select
        r.repo, r.path, r.number as removal, r.week_start as removal_week,
        c.number as restoration, c.merged_at as restored_at, c.week_start as restoration_week
    from removals r
    join file_changes c
        on c.repo = r.repo
        and c.path = r.path
        and c.merged_at > r.merged_at
        and c.week_start <= r.week_start + to_weeks((select window_weeks from settings))
    cross join words w
    where c.change_type = 'ADDED'
       or (c.additions > 0 and list_has_any(
           regexp_split_to_array(lower(c.title), '[^a-z0-9-]+'), w.restore_words))
    qualify row_number() over (partition by r.repo, r.path, r.number order by c.merged_at, c.number) = 1
),

churn_members as (
    select
        repo, path, removal, removal_week, restoration_week, removal as number,
        removal_week as week_start, 'removed' as role
    from restorations
    union all
    select
        repo, path, removal, removal_week, restoration_week, restoration as number,
        restoration_week as week_start, 'restored' as role
    from restorations
    union all
    select repo, path, removal, removal_week, restoration_week, number, week_start, 'changed'
    from (
        select
            r.repo, r.path, r.removal, r.removal_week, r.restoration_week, c.number, c.week_start,
            count(*) over (partition by r.repo, r.path, r.removal) as later_changes
        from restorations r
        join file_changes c
            on c.repo = r.repo
            and c.path = r.path
            and c.merged_at > r.restored_at
            and c.week_start <= r.removal_week + to_weeks((select window_weeks from settings))
    ) l
    -- a file changed more often after is busy for other reasons: its later changes stay out
    where later_changes <= (select churn_max_changes from settings)
),

churn_candidates as (
    select
        m.repo, w.week_start as story_week, 'file_churn' as kind, 5 as priority,
        'file_churn:' || m.path as story_key, m.path as evidence, m.number, m.role
    from churn_members m
    -- the weeks from the restoration to the end of the window that hold one of its PRs
    join (
        select distinct repo, path, removal, week_start
        from churn_members
        semi join reported using (repo, week_start)
    ) w
        on w.repo = m.repo
        and w.path = m.path
        and w.removal = m.removal
        and w.week_start between m.restoration_week
            and m.removal_week + to_weeks((select window_weeks from settings))
        and m.week_start <= w.week_start
),

candidates as (
    select * from release_candidates
    union all
    select * from revert_candidates
    union all
    select * from tag_candidates
    union all
    select * from marker_candidates
    union all
    select * from churn_candidates
    union all
    select * from link_candidates
    union all
    select * from name_candidates
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
join prs p using (repo, number)
where p.week_start <= c.story_week
group by c.repo, c.story_week, c.kind, c.story_key, c.number, p.week_start, p.merged_at, p.importance
