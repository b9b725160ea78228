{{ config(materialized='ephemeral') }}

-- The topic rules (seeds/topic_rules.csv) with their topic's position, keywords normalised as
-- the text is: lower case, `-`, `/`, `.` as spaces; a `keywords` rule takes its signal's words
-- from seeds/keywords.csv and is a title rule. A step of int_pull_request_topics, inlined where
-- it is read.
select
    r.topic,
    t.position,
    case when r.source = 'keywords' then 'title' else r.source end as source,
    trim(regexp_replace(lower(coalesce(k.keyword, r.match)), '[-/.\s]+', ' ', 'g')) as keyword
from {{ ref('topic_rules') }} r
join {{ ref('topics') }} t using (topic)
left join {{ ref('keywords') }} k on r.source = 'keywords' and k.signal = r.match
