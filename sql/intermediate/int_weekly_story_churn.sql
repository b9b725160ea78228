{{ config(materialized='ephemeral') }}

-- The file_churn candidates of each reported week: a file removed and later restored, with
-- its later changes (see int_weekly_story_candidates). A step of
-- int_weekly_story_candidates, inlined where it is read.

-- --- a file removed and restored --------------------------------------------------------------
with files as (
    select f.repo, f.week_start, f.number, f.path, f.additions, f.deletions, f.change_type
    from {{ ref('int_pull_request_files') }} f
    where not f.is_generated
    {{ in_run_weeks(back="2 * (select window_weeks from " ~ ref('int_weekly_story_settings') ~ " settings)", of='f', keyword='and') }}
),

-- every step below follows a removed file by its path: the changes of other paths are never
-- read (at a million PRs, 2.7 million file changes joined to their PRs for none)
removed_paths as (
    select distinct f.repo, f.path
    from files f
    cross join {{ ref('int_weekly_story_settings') }} s
    where f.change_type = 'DELETED' or (f.additions = 0 and f.deletions >= s.churn_min_lines)
),

file_changes as (
    select f.repo, f.week_start, f.number, f.path, f.additions, f.deletions, f.change_type, p.merged_at, p.title
    from files f
    semi join removed_paths using (repo, path)
    join {{ ref('int_weekly_story_prs') }} p using (repo, number)
),

removals as (
    select c.*
    from file_changes c
    cross join {{ ref('int_weekly_story_settings') }} s
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
        and c.week_start <= r.week_start + to_weeks((select window_weeks from {{ ref('int_weekly_story_settings') }} settings))
    cross join {{ ref('int_weekly_story_words') }} w
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
            and c.week_start <= r.removal_week + to_weeks((select window_weeks from {{ ref('int_weekly_story_settings') }} settings))
    ) l
    -- a file changed more often after is busy for other reasons: its later changes stay out
    where later_changes <= (select churn_max_changes from {{ ref('int_weekly_story_settings') }} settings)
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
        semi join {{ ref('int_weekly_story_weeks') }} reported using (repo, week_start)
    ) w
        on w.repo = m.repo
        and w.path = m.path
        and w.removal = m.removal
        and w.week_start between m.restoration_week
            and m.removal_week + to_weeks((select window_weeks from {{ ref('int_weekly_story_settings') }} settings))
        and m.week_start <= w.week_start
)

select * from churn_candidates
