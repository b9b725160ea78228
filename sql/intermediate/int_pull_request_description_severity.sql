{{ config(materialized='ephemeral') }}

-- Each consequence phrase of seeds/severity_words.csv as ` word word ` (lower case, anything
-- but letters and digits one space), with its consequence: a step of
-- int_pull_request_descriptions, inlined where it is read.
select distinct ' ' || trim(regexp_replace(lower(phrase), '[^a-z0-9]+', ' ', 'g')) || ' ' as phrase, consequence
from {{ ref('severity_words') }}
