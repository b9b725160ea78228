{{ config(materialized='incremental', lookback=var('lookback_weeks')) }}

-- One row per raised risk flag and pull request of a week, with the reason a reader can check:
-- in English (`reason`) and as data (`reason_key` names the sentence's form, `evidence` holds
-- its values as JSON), so that a report words it in its own language.
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
            {'risk_flag': 'missing_tests', 'raised': missing_tests, 'reason': missing_tests_reason,
              'reason_key': missing_tests_reason_key, 'evidence': missing_tests_evidence},
            {'risk_flag': 'core_path', 'raised': core_path, 'reason': core_path_reason,
              'reason_key': core_path_reason_key, 'evidence': core_path_evidence},
            {'risk_flag': 'unresolved_threads', 'raised': unresolved_threads, 'reason': unresolved_threads_reason,
              'reason_key': unresolved_threads_reason_key, 'evidence': unresolved_threads_evidence},
            {'risk_flag': 'no_approval', 'raised': no_approval, 'reason': no_approval_reason,
              'reason_key': no_approval_reason_key, 'evidence': no_approval_evidence},
            {'risk_flag': 'dependency_change', 'raised': dependency_change, 'reason': dependency_change_reason,
              'reason_key': dependency_change_reason_key, 'evidence': dependency_change_evidence},
            {'risk_flag': 'breaking_change', 'raised': breaking_change, 'reason': breaking_change_reason,
              'reason_key': breaking_change_reason_key, 'evidence': breaking_change_evidence},
            {'risk_flag': 'hardware_specific', 'raised': hardware_specific, 'reason': hardware_specific_reason,
              'reason_key': hardware_specific_reason_key, 'evidence': hardware_specific_evidence},
            {'risk_flag': 'large_change', 'raised': large_change, 'reason': large_change_reason,
              'reason_key': large_change_reason_key, 'evidence': large_change_evidence},
            {'risk_flag': 'revert', 'raised': revert, 'reason': revert_reason,
              'reason_key': revert_reason_key, 'evidence': revert_evidence},
            {'risk_flag': 'quick_follow_up', 'raised': quick_follow_up, 'reason': quick_follow_up_reason,
              'reason_key': quick_follow_up_reason_key, 'evidence': quick_follow_up_evidence}
        ]) as flag
    from flags
)

select
    repo,
    week_start,
    flag.risk_flag as risk_flag,
    number,
    flag.reason as reason,
    flag.reason_key as reason_key,
    flag.evidence as evidence
from unpivoted
where flag.raised
