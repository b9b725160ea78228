{{ config(materialized='incremental') }}

-- One row per repository and extracted week, including weeks in which nothing merged.
with weeks as (
    select * from {{ ref('stg_weekly_partitions') }}
    {% if is_incremental() %}
    where repo = {{ var('repo') }} and week_start between {{ var('start_week') }} and {{ var('end_week') }}
    {% endif %}
),

prs as (
    select * from {{ ref('fct_pull_requests') }}
    {% if is_incremental() %}
    where repo = {{ var('repo') }} and week_start between {{ var('start_week') }} and {{ var('end_week') }}
    {% endif %}
),

-- an author's first week is their earliest merged PR in everything extracted for the repository
first_weeks as (
    select repo, author, min(week_start) as first_week
    from {{ ref('stg_pull_requests') }}
    {% if is_incremental() %}
    where repo = {{ var('repo') }}
    {% endif %}
    group by repo, author
),

key_threshold as (
    select weight as threshold from {{ ref('importance_weights') }} where factor = 'key_threshold'
),

per_week as (
    select
        p.repo,
        p.week_start,
        count(*) as merged_prs,
        count(*) filter (where p.importance >= k.threshold) as key_prs,
        count(distinct p.author) as authors,
        count(distinct p.author) filter (where fw.first_week = p.week_start) as first_time_authors,
        sum(p.additions) as additions,
        sum(p.deletions) as deletions,
        -- the change type that carries the most importance names the week's theme
        arg_max(p.change_type, p.importance_sum_by_type) as dominant_type
    from (
        select *, sum(importance) over (partition by repo, week_start, change_type)
            as importance_sum_by_type
        from prs
    ) p
    cross join key_threshold k
    left join first_weeks fw using (repo, author)
    group by p.repo, p.week_start
),

final as (
    select
        w.repo,
        w.week_start,
        cast(isoyear(w.week_start) as integer) as iso_year,
        cast(week(w.week_start) as integer) as iso_week,
        coalesce(s.merged_prs, 0) as merged_prs,
        coalesce(s.key_prs, 0) as key_prs,
        coalesce(s.authors, 0) as authors,
        coalesce(s.first_time_authors, 0) as first_time_authors,
        coalesce(s.additions, 0) as additions,
        coalesce(s.deletions, 0) as deletions,
        t.theme_en as theme,
        t.theme_zh
    from weeks w
    left join per_week s using (repo, week_start)
    left join {{ ref('themes') }} t on t.change_type = s.dominant_type
)

select * from final
