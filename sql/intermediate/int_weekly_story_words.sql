{{ config(materialized='ephemeral') }}

-- The restore and reland words of seeds/story_words.csv, as lists in one row. A step of
-- int_weekly_story_candidates, inlined where it is read.
select
    (select list(distinct lower(word)) from {{ ref('story_words') }} where role = 'restore') as restore_words,
    (select list(distinct lower(word)) from {{ ref('story_words') }} where role = 'reland') as reland_words
