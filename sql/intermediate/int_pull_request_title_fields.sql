{{ config(materialized='ephemeral') }}

-- Each distinct title of the run's PRs cut into its parts, once however many PRs share it
-- (four in ten repeat at scale): emoji, [tags], `type(scope)!:` prefix, tokens and the fields
-- read from them. A step of int_pull_requests_classified (int_pull_request_typed joins it to
-- the PRs), inlined where it is read.

with titles as (
    select distinct title from {{ ref('stg_pull_requests') }}
    {{ in_run_weeks() }}
),

-- a gitmoji `:code:` or an emoji opening the title gives a type and is left out of the rest
-- (the emoji are compared only with a title that opens with the first character of one)
emoji_prefixes as (
    select
        p.title,
        nullif(regexp_extract(p.title, '^\s*:([a-z0-9_+-]+):', 1), '') as emoji_code,
        p.plain_title,
        case when list_contains(v.emoji_firsts, left(p.plain_title, 1)) or list_contains(v.emoji_firsts, '') then
            list_filter(v.emoji_types, lambda e: starts_with(p.plain_title, e.emoji))[1]
        end as emoji_match
    from (select title, replace(ltrim(title), chr(65039), '') as plain_title from titles) p
    cross join {{ ref('int_pull_request_class_vocabulary') }} v
),

title_parts as (
    select
        * exclude (plain_title),
        case
            when emoji_code is not null then regexp_replace(title, '^\s*:[a-z0-9_+-]+:\s*', '')
            when emoji_match is not null then ltrim(substr(plain_title, length(emoji_match.emoji) + 1))
            -- an emoji that is no gitmoji names no type: the title is read after it
            when regexp_matches(plain_title, '^\p{So}') then regexp_replace(plain_title, '^[\p{So}\x{200D}]+\s*', '')
            else title
        end as parse_title
    from emoji_prefixes
),

title_brackets as (
    select
        *,
        regexp_extract(parse_title, '^\s*((\[[^\]]*\]\s*)+)', 1) as bracket_prefix
    from title_parts
),

title_tokens as (
    select
        *,
        list_filter(
            list_transform(
                flatten(list_transform(
                    regexp_extract_all(bracket_prefix, '\[([^\]]*)\]', 1),
                    -- `[BREAKING config]` is the breaking tag and a module
                    lambda t: string_split(regexp_replace(t, '^\s*(?i:breaking)\s+', 'breaking,'), ',')
                )),
                lambda t: regexp_replace(lower(trim(t)), '\s+', ' ', 'g')
            ),
            lambda t: t <> '' and not regexp_matches(t, '^[\d\s/.]+$|^\d+\s*/\s*\w+$')
        ) as tokens,
        regexp_replace(trim(substr(parse_title, length(bracket_prefix) + 1)), '^[:：\-\s]+', '') as rest
    from title_brackets
),

-- the conventional-commit prefix `type(scope)!:`, matched once for all of its parts
title_prefixes as (
    select
        *,
        -- `Series::round` is a path, not a `type:` (the colons hidden, the lengths kept)
        regexp_extract(
            replace(rest, '::', '__'),
            '^(([A-Za-z][A-Za-z_/-]*(?: [A-Za-z][A-Za-z_-]*)?)\s*(?:\(([^)]*)\)|\[([^\]]*)\])?\s*(!)?\s*[:：])',
            ['prefix', 'type', 'scope', 'bracket_scope', 'bang']
        ) as typed_prefix,
        -- an upper-case type word without a colon, as in `MNT Update ...` or `FIX make ...`
        nullif(regexp_extract(rest, '^([A-Z]{2,})\s+[^\s:]', 1), '') as upper_word
    from title_tokens
),

title_fields as (
    select
        * exclude (typed_prefix),
        lower(typed_prefix.type) as prefix_word,
        regexp_full_match(typed_prefix.type, '[A-Z]{2,}') as prefix_is_upper,
        lower(coalesce(nullif(typed_prefix.scope, ''), typed_prefix.bracket_scope)) as typed_scope,
        typed_prefix.bang = '!' as typed_bang,
        trim(substr(rest, length(typed_prefix.prefix) + 1)) as description,
        regexp_split_to_array(lower(title), '[^a-z0-9]+') as title_words,
        lower(regexp_extract(trim(substr(rest, length(typed_prefix.prefix) + 1)), '^\W*([A-Za-z]+)', 1)) as first_word,
        lower(regexp_extract(trim(substr(rest, length(typed_prefix.prefix) + 1)), '^\W*[A-Za-z]+\W+([A-Za-z]+)', 1))
            as second_word,
        list_filter(regexp_split_to_array(lower(parse_title), '[\s,:;()\[\]"''`!]+'), lambda w: w <> '')
            as title_tokens,
        -- the words of what follows the prefix, code split at its capitals (`CacheEntry`:
        -- `cache`, `entry`), that may name an area (int_pull_request_placed): once per title
        regexp_split_to_array(lower(regexp_replace(
            coalesce(trim(substr(rest, length(typed_prefix.prefix) + 1)), rest), '([a-z0-9])([A-Z])', '\1 \2', 'g')),
            '[^a-z0-9]+') as area_words
    from title_prefixes
)

select * from title_fields  -- noqa: AM04
