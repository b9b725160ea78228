{{ config(materialized='ephemeral') }}

-- The thresholds that place a PR in its areas (seeds/thresholds.csv), as one row. A step of
-- int_pull_requests_classified, inlined where it is read.
select
    max(value) filter (where name = 'path_area_min_share') as path_area_min_share,
    max(value) filter (where name = 'helper_area_weight') as helper_area_weight,
    (select list(distinct lower(tag)) from {{ ref('scope_tags') }} where kind in ('generic', 'catch_all'))
        as catch_all_areas
from {{ ref('thresholds') }}
