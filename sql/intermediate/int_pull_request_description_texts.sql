{{ config(materialized='ephemeral') }}

-- Each merged PR's title and description (its first 20,000 characters), with what its title
-- says (int_pull_request_description_titles): a step of int_pull_request_descriptions, read by
-- read_description and by the signals' lines (int_pull_request_description_lines).
select p.repo, p.week_start, p.number, p.title, left(p.body, 20000) as body,
    t.title_words, t.title_hardware_word, t.title_severity_phrase
from {{ ref('stg_pull_requests') }} p
join {{ ref('int_pull_request_description_titles') }} t using (title)
{{ in_run_weeks(of='p') }}
