{{ config(materialized='ephemeral') }}

-- The core files each PR touches, for its core_path flag: its files among the hotspots of its
-- week (int_hotspots) or under a configured core prefix, by rank. A step of
-- int_pull_request_flags, inlined where it is read.
with files as (
    select * from {{ ref('int_pull_request_files') }}
    {{ in_run_weeks() }}
),

hotspots as (
    select * from {{ ref('int_hotspots') }}
    {{ in_run_weeks() }}
),

-- core paths touched: this week's hotspots and the configured prefixes
core_touches as (
    select
        f.repo,
        f.week_start,
        f.number,
        -- by hotspot rank, then path (the struct's first fields): sorted after the aggregate
        list_sort(list(
            {'rank': coalesce(h.hotspot_rank, 1000000), 'path': f.path, 'lines': f.lines,
             'prs': h.pr_count, 'weeks': s.hotspot_weeks, 'prefix': f.configured_core_prefix}
        )) as core_files
    from files f
    cross join {{ ref('int_pull_request_flag_settings') }} s
    left join hotspots h using (repo, week_start, path)
    where (h.path is not null or f.configured_core_prefix is not null) and not f.is_generated
        and f.lines >= s.core_path_min_lines
    group by f.repo, f.week_start, f.number
)

select * from core_touches
