{{ config(materialized='table') }}

-- The risk flags of int_pull_request_flags as one BOOLEAN column each (NULL: unknown), named
-- and ordered by seeds/risk_flags.csv, so that fct_pull_requests carries a column per flag
-- without naming one. A table built whole: DuckDB takes a pivot's column names from a query
-- only in a statement without parameters.
with raised as (
    select f.repo, f.week_start, f.number, r.risk_flag, r.raised
    from {{ ref('int_pull_request_flags') }} f, unnest(f.risks) as u(r)  -- noqa: AL01, LT01
)

pivot raised
on risk_flag in (select risk_flag from {{ ref('risk_flags') }} order by position)
using any_value(raised)
group by repo, week_start, number
