{{ config(materialized='ephemeral') }}

-- The words int_pull_request_files classifies paths with, as one row: the container folders
-- (seeds/container_folders.csv, by kind), the languages (seeds/scope_tags.csv), the share of
-- a repository's code changes that makes a folder a container, and the hardware keywords
-- (seeds/keywords.csv). A step of int_pull_request_files, inlined where it is read.
select
    -- the folders without `-_. `, as the paths' keys are (`_utils` is `utils`)
    (select list(distinct replace(replace(replace(replace(lower(folder), '-', ''), '_', ''), '.', ''), ' ', '')) from {{ ref('container_folders') }}) as containers,
    (select list(distinct replace(replace(replace(replace(lower(folder), '-', ''), '_', ''), '.', ''), ' ', '')) from {{ ref('container_folders') }}
     where kind = 'fixtures') as fixture_folders,
    (select list(distinct replace(replace(replace(replace(lower(folder), '-', ''), '_', ''), '.', ''), ' ', '')) from {{ ref('container_folders') }}
     where kind = 'catch_all') as catch_all_folders,
    (select list(distinct regexp_replace(lower(tag), '[-_. ]', '', 'g'))
     from {{ ref('scope_tags') }} where kind = 'language') as languages,
    (select max(value) from {{ ref('thresholds') }} where name = 'container_min_share')
        as container_min_share,
    (select list(distinct keyword) from {{ ref('keywords') }} where signal = 'hardware') as hardware_words
