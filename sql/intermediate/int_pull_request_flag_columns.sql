{{ config(materialized='incremental', lookback=var('lookback_weeks')) }}

-- The risk flags of int_pull_request_flags as one BOOLEAN column each (NULL: unknown), named
-- and ordered by seeds/risk_flags.csv, so that fct_pull_requests carries a column per flag
-- without naming one. DuckDB takes a pivot's column names from a query only in a statement
-- without parameters, so the seed's flags are read while the model is rendered (seed_values,
-- with run_query as in dbt) and spelt out: the model is incremental like the flags it pivots
-- (a week's run pivoted every PR again, a second at a million PRs). A new or reordered flag
-- changes the columns, and the runner then builds the table again whole.
--
-- The scope's rows are chosen before the unnest: DuckDB pushes no filter below a lateral
-- unnest, so a filter after it read every PR's flags (0.1 s of CPU for a week at a million PRs).
with flags as (
    select repo, week_start, number, risks from {{ ref('int_pull_request_flags') }}
    {{ in_run_weeks() }}
),

raised as (
    select f.repo, f.week_start, f.number, r.risk_flag, r.raised
    from flags f, unnest(f.risks) as u(r)  -- noqa: AL01, LT01
)

pivot raised
on risk_flag in ({{ seed_values(ref('risk_flags'), 'risk_flag', 'position') }})
using any_value(raised)
group by repo, week_start, number
