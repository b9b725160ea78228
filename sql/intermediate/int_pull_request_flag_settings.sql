{{ config(materialized='ephemeral') }}

-- The thresholds the risk flags read (seeds/thresholds.csv), as one row: a step of
-- int_pull_request_flags, inlined where it is read.
select
    max(value) filter (where name = 'missing_tests_min_lines') as missing_tests_min_lines,
    max(value) filter (where name = 'large_change_lines') as large_change_lines,
    max(value) filter (where name = 'large_change_files') as large_change_files,
    cast(max(value) filter (where name = 'hotspot_weeks') as integer) as hotspot_weeks,
    max(value) filter (where name = 'core_path_min_lines') as core_path_min_lines,
    max(value) filter (where name = 'large_change_min_added_share') as large_change_min_added_share,
    max(value) filter (where name = 'hardware_min_share') as hardware_min_share,
    max(value) filter (where name = 'dependency_lock_min_lines') as dependency_lock_min_lines
from {{ ref('thresholds') }}
