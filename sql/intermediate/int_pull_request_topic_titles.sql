{{ config(materialized='ephemeral') }}

-- Each distinct title of the run's PRs, once however many PRs share it: its words, pairs and
-- triples of words (so that a rule's phrase matches too) and the version it names. A step of
-- int_pull_request_topics, inlined where it is read.
select
    title,
    list_concat(
        w,
        list_transform(range(1, len(w)), lambda i: w[i] || ' ' || w[i + 1]),
        list_transform(range(1, len(w) - 1), lambda i: w[i] || ' ' || w[i + 1] || ' ' || w[i + 2])
    ) as title_grams,
    nullif(regexp_extract(title, '(?:^|[\s=<>(])(v?\d+(?:\.\d+)+(?:[.-]?rc\d*)?)', 1), '') as version
from (
    select title, list_filter(regexp_split_to_array(lower(title), '[^a-z0-9_+]+'), lambda x: x <> '') as w
    from (
        select distinct title from {{ ref('stg_pull_requests') }}
        {{ in_run_weeks() }}
    )
)
