{{ config(materialized='incremental', lookback_weeks=26) }}

-- One row per raised risk flag and pull request of a week, with the reason a reader can check.
with flags as (
    select * from {{ ref('int_pull_request_flags') }}
    {% if is_incremental() %}
    where repo = {{ var('repo') }} and week_start between {{ var('start_week') }} and {{ var('end_week') }}
    {% endif %}
),

unpivoted as (
    select
        repo,
        week_start,
        number,
        unnest([
            {'risk_flag': 'missing_tests', 'raised': missing_tests, 'reason': missing_tests_reason},
            {'risk_flag': 'core_path', 'raised': core_path, 'reason': core_path_reason},
            {'risk_flag': 'unresolved_threads', 'raised': unresolved_threads, 'reason': unresolved_threads_reason},
            {'risk_flag': 'no_approval', 'raised': no_approval, 'reason': no_approval_reason},
            {'risk_flag': 'dependency_change', 'raised': dependency_change, 'reason': dependency_change_reason},
            {'risk_flag': 'breaking_change', 'raised': breaking_change, 'reason': breaking_change_reason},
            {'risk_flag': 'hardware_specific', 'raised': hardware_specific, 'reason': hardware_specific_reason},
            {'risk_flag': 'large_change', 'raised': large_change, 'reason': large_change_reason},
            {'risk_flag': 'revert', 'raised': revert, 'reason': revert_reason},
            {'risk_flag': 'quick_follow_up', 'raised': quick_follow_up, 'reason': quick_follow_up_reason}
        ]) as flag
    from flags
)

select repo, week_start, flag.risk_flag as risk_flag, number, flag.reason as reason
from unpivoted
where flag.raised
