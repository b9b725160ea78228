{{ config(materialized='incremental') }}

-- One row per merged pull request: what it is, how much it matters and what is risky about it.
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

risks as (
    select repo, number, list(risk_flag order by risk_flag) as risk_flags
    from {{ ref('int_pull_request_risks') }}
    {% if is_incremental() %}
    where repo = {{ var('repo') }} and week_start between {{ var('start_week') }} and {{ var('end_week') }}
    {% endif %}
    group by repo, number
),

weights as (
    select map(list(factor), list(weight)) as w from {{ ref('importance_weights') }}
),

factors as (
    select
        p.*,
        c.change_type,
        c.change_type_signal,
        c.primary_area,
        c.areas,
        c.is_breaking,
        c.touches_tests,
        least(weights.w['size_cap'], weights.w['size'] * log10(1 + p.additions + p.deletions))
            as size_points,
        weights.w['area_breadth'] * greatest(len(c.areas) - 1, 0)
            + weights.w['file_breadth'] * least(p.changed_files, 10) as breadth_points,
        coalesce(weights.w['type_' || c.change_type], 0) as type_points,
        case when c.is_breaking then weights.w['breaking'] else 0 end as breaking_points
    from prs p
    join classified c using (repo, number)
    cross join weights
),

-- the first paragraph of the description that is prose: template headings, quotes, comments,
-- checklists and code are dropped, and a hard-wrapped paragraph is joined into one line
summaries as (
    select
        repo,
        number,
        list_filter(
            list_transform(
                string_split_regex(replace(body, chr(13), ''), '\n\s*\n'),
                lambda para: trim(regexp_replace(
                    regexp_replace(para, '(?m)^\s*#.*$', '', 'g'),
                    '\s*\n\s*', ' ', 'g'
                ))
            ),
            lambda para: para <> ''
                and not regexp_matches(para, '^(>|<!--|```|\||[-*]\s*\[[ xX]\])')
        )[1] as first_paragraph
    from prs
),

final as (
    select
        f.repo,
        f.number,
        f.week_start,
        f.merged_at,
        f.title,
        f.url,
        f.author,
        f.change_type,
        f.change_type_signal,
        f.primary_area,
        f.areas,
        f.is_breaking,
        f.additions,
        f.deletions,
        f.changed_files,
        f.touches_tests,
        round(least(10, f.size_points + f.breadth_points + f.type_points + f.breaking_points), 1)
            as importance,
        round(f.size_points, 2) as importance_size,
        round(f.breadth_points, 2) as importance_breadth,
        round(f.type_points, 2) as importance_type,
        round(f.breaking_points, 2) as importance_breaking,
        coalesce(r.risk_flags, []) as risk_flags,
        -- NULL when the source did not list files, since the flag cannot be decided then
        case when f.files_known then list_contains(coalesce(r.risk_flags, []), 'missing_tests') end
            as missing_tests,
        list_contains(coalesce(r.risk_flags, []), 'large_change') as large_change,
        left(regexp_replace(coalesce(s.first_paragraph, ''), '^[-*+]\s+|\*\*|__|`', '', 'g'), 280)
            as summary
    from factors f
    left join risks r using (repo, number)
    left join summaries s using (repo, number)
)

select * from final
