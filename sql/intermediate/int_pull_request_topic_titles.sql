{{ config(materialized='ephemeral') }}

-- Each distinct title of the run's PRs, once however many PRs share it: its words, pairs and
-- triples of words (so that a rule's phrase matches too; only those that start with the first
-- word of a title rule's phrase, the others naming no topic) and the version it names. A step
-- of int_pull_request_topics, inlined where it is read.
select
    title,
    list_concat(
        w,
        list_transform(list_filter(range(1, len(w)), lambda i: list_contains(f.firsts, w[i])),
            lambda i: w[i] || ' ' || w[i + 1]),
        list_transform(list_filter(range(1, len(w) - 1), lambda i: list_contains(f.firsts, w[i])),
            lambda i: w[i] || ' ' || w[i + 1] || ' ' || w[i + 2])
    ) as title_grams,
    nullif(regexp_extract(title, '(?:^|[\s=<>(])(v?\d+(?:\.\d+)+(?:[.-]?rc\d*)?)', 1), '') as version
from (
    select title, list_filter(regexp_split_to_array(lower(title), '[^a-z0-9_+]+'), lambda x: x <> '') as w
    from (
        select distinct title from {{ ref('stg_pull_requests') }}
        {{ in_run_weeks() }}
    )
)
cross join (
    select list(distinct split_part(keyword, ' ', 1)) as firsts
    from {{ ref('int_pull_request_topic_rules') }}
    where source = 'title' and contains(keyword, ' ')
) f
