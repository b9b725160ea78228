{{ config(materialized='table') }}

-- The importance weights (seeds/importance_weights.csv) as the reports' method section states
-- them: one row per factor, cap and threshold.
select factor, weight, description
from {{ ref('importance_weights') }}
