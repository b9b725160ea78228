{{ config(materialized='ephemeral') }}

-- Each merged PR's row with its importance factors (weights in seeds/importance_weights.csv):
-- a step of fct_pull_requests, inlined where it is read, which rounds them and sums them into
-- `importance`. Its inputs read from `key_back` weeks before the run's first week, as the
-- model's do.
{%- set key_back = "(select key_weeks - 1 from " ~ ref('int_pull_request_key_settings') ~ ")" %}
with prs as (
    select * from {{ ref('stg_pull_requests') }}
    {{ in_run_weeks(back=key_back) }}
),

classified as (
    select * from {{ ref('int_pull_requests_classified') }}
    {{ in_run_weeks(back=key_back) }}
),

-- the raised flags' names, not their reasons: the list of every flag with its reason is the
-- widest column of the joins below (about 700 MB at a million PRs)
flags as (
    select
        * exclude (risks),
        list_sort([r.risk_flag for r in risks if r.raised]) as risk_flags
    from {{ ref('int_pull_request_flags') }}
    {{ in_run_weeks(back=key_back) }}
),

-- one BOOLEAN column per risk flag, named and ordered by seeds/risk_flags.csv
flag_columns as (
    select * from {{ ref('int_pull_request_flag_columns') }}
    {{ in_run_weeks(back=key_back) }}
),

descriptions as (
    select * from {{ ref('int_pull_request_descriptions') }}
    {{ in_run_weeks(back=key_back) }}
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
        c.area_signal,
        fc.breaking_change as is_breaking,
        c.is_performance,
        c.touches_tests,
        c.new_module_path,
        fl.* exclude (repo, week_start, number, changed_lines, changed_files),
        d.severity_word,
        d.severity_consequence,
        d.summary,
        d.summary_source,
        d.impact_claims,
        d.headline_claim,
        d.caveats,
        least(w.w['size_cap'], w.w['size'] * log10(1 + p.additions + p.deletions)) as size_points,
        least(
            w.w['breadth_cap'],
            w.w['area_breadth'] * greatest(len(c.areas) - 1, 0)
                + w.w['file_breadth'] * least(p.changed_files, 10)
        ) as breadth_points,
        case when fc.core_path then w.w['core'] else 0 end as core_points,
        coalesce(w.w['type_' || c.change_type], 0) as type_points,
        case when fc.breaking_change then w.w['breaking'] else 0 end as breaking_points,
        -- consequence: a fix of a race, a crash, a corruption, ... (seeds/severity_words.csv)
        case when c.change_type = 'fix' and d.severity_word is not null then w.w['severity'] else 0 end
            as severity_points,
        -- a figure the author measured: the headline claim (a control row's ×1.00 is none)
        case when d.headline_claim is not null then w.w['impact'] else 0 end as impact_points,
        case when c.new_module_path is not null then w.w['surface'] else 0 end as surface_points,
        -- NULL when the source holds no reviews and no threads: unknown, so it adds nothing
        case when fl.reviews_known or fl.threads_known then least(
            w.w['review_cap'],
            w.w['review_reviewer'] * coalesce(fl.reviewers, 0)
                + w.w['review_thread'] * coalesce(fl.thread_count, 0)
        ) end as review_points,
        c.change_type in ('docs', 'ci', 'chore') as dampened,
        w.w['dampener'] as dampener_keep
    from prs p
    join classified c using (repo, week_start, number)
    join flags fl using (repo, week_start, number)
    join flag_columns fc using (repo, week_start, number)
    join descriptions d using (repo, week_start, number)
    cross join weights w
),

scored as (
    select
        *,
        size_points + breadth_points + core_points + type_points + breaking_points
            + severity_points + impact_points + surface_points + coalesce(review_points, 0) as raw_points
    from factors
),

-- docs, CI and chore PRs keep `dampener` of their points, but all of a breaking change's
select
    *,
    case when dampened then (raw_points - breaking_points) * (1 - dampener_keep) else 0 end
        as dampener_points
from scored
