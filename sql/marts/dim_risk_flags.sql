{{ config(materialized='table') }}

-- One row per risk flag (seeds/risk_flags.csv): the order in which reports and fct_pull_requests
-- list the flags (`position`) and how much attention each deserves (`severity_rank`, 1 first:
-- the order of a report's risk groups and of a PR's flags).
select risk_flag, position, severity_rank, description
from {{ ref('risk_flags') }}
