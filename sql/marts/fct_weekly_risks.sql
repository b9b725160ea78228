{{ config(materialized='incremental', lookback=var('lookback_weeks')) }}

-- One row per raised risk flag and pull request of a week, with the reason a reader can check:
-- in English (`reason`) and as data (`reason_key` names the sentence's form, `evidence` holds
-- its values as JSON), so that a report words it in its own language.
with flags as (
    select * from {{ ref('int_pull_request_flags') }}
    {{ in_run_weeks() }}
),

final as (
    select
        repo,
        week_start,
        r.risk_flag,
        number,
        r.reason,
        r.reason_key,
        r.evidence
    -- only the raised flags are unnested (most of a PR's flags are not raised), in the select
    -- list: a lateral `from flags f, unnest(...)` is joined back to its rows, 13 times the CPU
    from (
        select repo, week_start, number, unnest(list_filter(risks, lambda x: x.raised)) as r
        from flags
    )
)

select * from final
