{{ config(materialized='ephemeral') }}

-- The words a PR's title and labels are read with (seeds: change types, verbs, purposes,
-- emoji, areas, scope tags, ...), as one row. A step of
-- int_pull_requests_classified, inlined where it is read.
select
    (select map(list(lower(alias)), list(change_type)) from {{ ref('change_type_aliases') }}
     where not upper_case_only) as type_of_alias,
    (select map(list(lower(alias)), list(change_type)) from {{ ref('change_type_aliases') }})
        as type_of_upper_alias,
    (select list(lower(alias)) filter (where not is_area) from {{ ref('change_type_aliases') }}
     where not upper_case_only) as type_only_words,
    (select map(list(lower(verb)), list(change_type)) from {{ ref('title_verbs') }}) as type_of_verb,
    (select map(list(lower(verb)), list(change_type)) from {{ ref('title_verbs') }} where anywhere)
        as type_of_word,
    (select map(list(lower(code)), list(change_type)) from {{ ref('title_emoji') }}) as type_of_emoji_code,
    (select list({'emoji': emoji, 'change_type': change_type} order by length(emoji) desc, emoji)
     from (select distinct emoji, change_type from {{ ref('title_emoji') }})) as emoji_types,
    (select list(distinct left(emoji, 1)) from {{ ref('title_emoji') }}) as emoji_firsts,
    (select list(distinct lower(tag)) from {{ ref('scope_tags') }}) as scope_tags,
    (select list(distinct lower(folder)) from {{ ref('container_folders') }}) as container_words,
    (select list(distinct lower(folder)) from {{ ref('container_folders') }}
     where kind in ('components', 'fixtures')) as holder_words,
    (select list(distinct lower(tag)) from {{ ref('scope_tags') }} where kind = 'language') as language_tags,
    (select list(distinct lower(word)) from {{ ref('release_words') }}) as release_words,
    (select list({'pattern': lower(login_pattern), 'change_type': change_type}) from {{ ref('bot_authors') }})
        as bot_types,
    (select list(distinct lower(keyword)) from {{ ref('keywords') }} where signal = 'performance') as performance_words,
    (select list(distinct lower(keyword)) from {{ ref('keywords') }} where signal = 'dependency') as dependency_words,
    (select map(list(lower(alias)), list(coalesce(area, ''))) from {{ ref('area_aliases') }} where repo = '*') as area_of_alias,
    -- `... to <phrase>`: what the change is for, the longest phrase first
    (select list({'phrase': ' to ' || trim(regexp_replace(lower(phrase), '[^a-z0-9]+', ' ', 'g')) || ' ',
                  'change_type': change_type} order by length(phrase) desc, phrase)
     from {{ ref('title_purposes') }}) as purposes
