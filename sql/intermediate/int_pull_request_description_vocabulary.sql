{{ config(materialized='ephemeral') }}

-- The lists of phrases and words the description's signals look for, as one row: a step of
-- int_pull_request_descriptions, inlined where it is read. Phrases as ` word word `: lower
-- case, anything but letters and digits one space, so that
-- `contains(' ' || normalised text || ' ', phrase)` matches whole words.
with phrases as (
    select signal, ' ' || trim(regexp_replace(lower(phrase), '[^a-z0-9]+', ' ', 'g')) || ' ' as phrase
    from {{ ref('description_signals') }}
),

severity as (
    select phrase from {{ ref('int_pull_request_description_severity') }}
)

select
    (select list(phrase) from phrases where signal = 'test_box') as test_box_words,
    (select list(phrase) from phrases where signal = 'no_test') as no_test_phrases,
    (select list(phrase) from phrases where signal = 'no_test_section') as no_test_answers,
    (select list(phrase) from phrases where signal = 'breaking') as breaking_phrases,
    (select list(phrase) from phrases where signal = 'breaking_negation') as breaking_negations,
    (select list(phrase) from phrases where signal = 'severity_ignored') as severity_ignored,
    (select list(phrase) from severity) as severity_phrases,
    (select list(distinct ' ' || lower(keyword) || ' ') from {{ ref('keywords') }} where signal = 'hardware')
        as hardware_words,
    -- each phrase's last word: a text whose words hold none of these holds none of the
    -- phrases (a list of words is searched faster than the text, for every phrase)
    (select list(distinct lower(keyword)) from {{ ref('keywords') }} where signal = 'hardware') as hardware_tokens,
    (select list(distinct string_split(trim(phrase), ' ')[-1]) from severity) as severity_tokens,
    (select list(distinct string_split(trim(phrase), ' ')[-1]) from phrases where signal = 'breaking')
        as breaking_tokens
