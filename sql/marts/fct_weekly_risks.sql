{{ config(materialized='incremental') }}

-- One row per risk flag and pull request of a week.
with risks as (
    select * from {{ ref('int_pull_request_risks') }}
    {% if is_incremental() %}
    where repo = {{ var('repo') }} and week_start between {{ var('start_week') }} and {{ var('end_week') }}
    {% endif %}
)

select repo, week_start, risk_flag, number, reason
from risks
