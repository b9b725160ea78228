{{ config(materialized='ephemeral') }}

-- The words of seeds/flag_words.csv as lists, so the rules of the risk flags look them up in one
-- step: a step of int_pull_request_flags, inlined where it is read.
select
    list(word) filter (where flag = 'hardware_specific' and kind = 'change_verb') as change_verbs,
    -- the first opener a sentence starts with is taken: the longest first, a total order
    list(word order by length(word) desc, word) filter (where flag = 'hardware_specific' and kind = 'opener')
        as openers,
    list(word) filter (where flag = 'hardware_specific' and kind = 'negation') as negations,
    list(word) filter (where flag = 'hardware_specific' and kind = 'general_platform') as platforms,
    list(word) filter (where flag = 'dependency_change' and kind = 'version_action') as version_actions,
    list(word) filter (where flag = 'dependency_change' and kind in ('version_action', 'action'))
        as dependency_actions,
    list(word) filter (where flag = 'dependency_change' and kind = 'noun') as dependency_nouns,
    list(word) filter (where flag = 'dependency_change' and kind = 'name_prefix') as name_prefixes,
    list(word) filter (where flag = 'dependency_change' and kind = 'own_version') as own_version_words,
    list(word) filter (where flag = 'dependency_change' and kind in ('version_action', 'own_version_verb'))
        as bump_verbs,
    list(word) filter (where flag = 'dependency_change' and kind = 'not_a_name') as not_names,
    list(word) filter (where flag = 'dependency_change' and kind in ('noun', 'name_follower')) as name_followers,
    (select list(lower(login_pattern)) from {{ ref('bot_authors') }}) as bot_patterns,
    (select list(distinct lower(keyword)) from {{ ref('keywords') }} where signal = 'hardware') as hardware_words
from {{ ref('flag_words') }}
