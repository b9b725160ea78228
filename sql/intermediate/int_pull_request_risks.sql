{{ config(materialized='incremental') }}

-- One row per risk flag raised on a merged pull request, with a reason a reader can check.
-- A flag whose data the source lacks is not raised here; fct_pull_requests reports it as NULL.
with prs as (
    select * from {{ ref('stg_pull_requests') }}
    {% if is_incremental() %}
    where repo = {{ var('repo') }} and week_start between {{ var('start_week') }} and {{ var('end_week') }}
    {% endif %}
),

classified as (
    select * from {{ ref('int_pull_requests_classified') }}
    {% if is_incremental() %}
    where repo = {{ var('repo') }} and week_start between {{ var('start_week') }} and {{ var('end_week') }}
    {% endif %}
),

thresholds as (
    select
        max(value) filter (where name = 'missing_tests_min_lines') as missing_tests_min_lines,
        max(value) filter (where name = 'large_change_lines') as large_change_lines,
        max(value) filter (where name = 'large_change_files') as large_change_files
    from {{ ref('thresholds') }}
),

sized as (
    select
        p.repo,
        p.week_start,
        p.number,
        p.additions + p.deletions as changed_lines,
        p.changed_files,
        c.change_type,
        c.touches_tests,
        t.*
    from prs p
    join classified c using (repo, number)
    cross join thresholds t
),

missing_tests as (
    select
        repo, week_start, number,
        'missing_tests' as risk_flag,
        printf('%s change of %d lines with no test file changed', change_type, changed_lines) as reason
    from sized
    where change_type in ('feat', 'fix', 'perf', 'refactor')
      and changed_lines >= missing_tests_min_lines
      and touches_tests = false
),

large_change as (
    select
        repo, week_start, number,
        'large_change' as risk_flag,
        printf('%d lines across %d files', changed_lines, changed_files) as reason
    from sized
    where changed_lines >= large_change_lines or changed_files >= large_change_files
),

flags as (
    select * from missing_tests
    union all
    select * from large_change
)

select * from flags
