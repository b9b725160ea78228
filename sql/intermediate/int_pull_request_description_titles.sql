{{ config(materialized='ephemeral') }}

-- What each distinct title of the run's PRs says, once however many PRs share it: its words
-- without its `[tags]` and `type(scope):` (for read_description, to tell a sentence that only
-- says the title again), and the hardware and the consequence it names. A step of
-- int_pull_request_descriptions, inlined where it is read.
with title_texts as (
    select
        title,
        trim(regexp_replace(lower(regexp_replace(regexp_replace(title,
            '^\s*(\[[^\]]*\]\s*)+', ''), '^[A-Za-z]+(\([^)]*\))?!?:\s*', '')), '[^a-z0-9]+', ' ', 'g')) as title_words,
        ' ' || trim(regexp_replace(lower(title), '[^a-z0-9]+', ' ', 'g')) || ' ' as title_norm
    from (
        select distinct title from {{ ref('stg_pull_requests') }}
        {{ in_run_weeks() }}
    )
),

title_signals as (
    select
        t.*,
        len(list_filter(v.hardware_tokens, lambda w: list_contains(t.words, w))) > 0 as has_hardware,
        case when len(list_filter(v.severity_tokens, lambda w: list_contains(t.words, w))) > 0
            then list_reduce(v.severity_ignored, lambda acc, p: replace(acc, p, ' '), t.title_norm)
        end as severity_norm
    from (select *, string_split(trim(title_norm), ' ') as words from title_texts) t
    cross join {{ ref('int_pull_request_description_vocabulary') }} v
)

select
    t.title,
    t.title_words,
    case when t.has_hardware then
        trim(list_sort(list_transform(
            list_filter(v.hardware_words, lambda w: contains(t.title_norm, w)),
            lambda w: {'at': instr(t.title_norm, w), 'word': w}))[1].word)
    end as title_hardware_word,
    case when t.severity_norm is not null then
        trim(list_sort(list_transform(
            list_filter(v.severity_phrases, lambda w: contains(t.severity_norm, w)),
            lambda w: {'at': instr(t.severity_norm, w) * 100 - length(w), 'word': w}))[1].word)
    end as title_severity_phrase
from title_signals t
cross join {{ ref('int_pull_request_description_vocabulary') }} v
