{{ config(materialized='ephemeral') }}

-- The series candidates of each reported week by `[i/N]` marker and by PRs that name each
-- other (see int_weekly_story_candidates). A step of
-- int_weekly_story_candidates, inlined where it is read.

-- --- [i/N] series -------------------------------------------------------------------------
-- the titles with a marker, each distinct title read once
with recursive marked_titles as (
    select
        title,
        regexp_extract(title, '(?i)^(.*?)[\s,:;-]*(?:[\[(]\s*\d+\s*/\s*(?:\d+|n)\s*[\])]|\bpart\s*\d+)', 1) as before,
        lower(regexp_extract(title, '(?i)[\[(]\s*\d+\s*/\s*(\d+|n)\s*[\])]|\bpart\s*\d+\s*of\s*(\d+)', 1)) as total
    from (select distinct title from {{ ref('int_weekly_story_prs') }} prs) d
    where regexp_matches(title, '(?i)[\[(]\s*\d+\s*/\s*(\d+|n)\s*[\])]|\bpart\s*\d+\b')
),

markers as (
    select p.repo, p.week_start, p.number, p.author, t.before, t.total
    from {{ ref('int_weekly_story_prs') }} p
    join marked_titles t on t.title = p.title
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
        select distinct repo, story_key, week_start from keyed_markers semi join {{ ref('int_weekly_story_weeks') }} reported using (repo, week_start)
    ) w
        on w.repo = m.repo
        and w.story_key = m.story_key
        and m.week_start between w.week_start - to_weeks((select window_weeks from {{ ref('int_weekly_story_settings') }} settings)) and w.week_start
),

-- --- PRs that name each other ---------------------------------------------------------------
link_edges as (
    select a.repo, a.number as a, b.number as b, a.week_start as week_a, b.week_start as week_b
    from (select repo, number, week_start, reverts_number, unnest(referenced_numbers) as referenced from {{ ref('int_weekly_story_prs') }} prs) a
    join {{ ref('int_weekly_story_prs') }} b on b.repo = a.repo and b.number = a.referenced
    where b.number <> a.number
      and a.reverts_number is distinct from b.number
      and abs(a.week_start - b.week_start) <= 7 * (select window_weeks from {{ ref('int_weekly_story_settings') }} settings)
),

-- an edge belongs to each reported week whose window holds both PRs
edge_weeks as (
    select e.repo, w.week_start as story_week, e.a, e.b
    from link_edges e
    join {{ ref('int_weekly_story_weeks') }} w
        on w.repo = e.repo
        and w.week_start between greatest(e.week_a, e.week_b)
            and least(e.week_a, e.week_b) + to_weeks((select window_weeks from {{ ref('int_weekly_story_settings') }} settings))
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
)

select * from marker_candidates
union all
select * from link_candidates
