{{ config(materialized='ephemeral') }}

-- The terms of each PR's title: its tags (`[tag]`, a `type(scope):`'s scope, ...) and its
-- words, each with the shape it is written in (a name, capitalised, neither). A step of
-- int_weekly_story_candidates, inlined where it is read. The terms depend on the title alone:
-- they are found once per distinct title (a million PRs of the scale bench write 183,000) and
-- joined to the PRs that write it.

-- --- title tags and names ----------------------------------------------------------------
with prs as (
    select repo, week_start, number, title from {{ ref('int_weekly_story_prs') }} prs
),

titles as (
    select
        title,
        -- the title after its emoji, its leading [tags] and a `type(scope)!:` prefix
        regexp_replace(
            regexp_replace(title, '^[^A-Za-z0-9\[(]*(:[a-z0-9_+-]+:\s*)?((\[[^\]]*\]|\([^)]*\))\s*)*', ''),
            '^[A-Za-z]+(\([^)]*\))?!?\s*:\s*', ''
        ) as rest,
        regexp_extract(regexp_replace(title, '^[^A-Za-z0-9\[(]*(\[[^\]]*\]\s*)*', ''), '^[A-Za-z]+\(([^)]+)\)!?\s*:', 1)
            as scope,
        -- a module or topic of up to three words before a colon (`New defaults: ...`), not
        -- a gitmoji code (`:arrow_up: ...`)
        case when not regexp_matches(title, '^\s*:[a-z0-9_+-]+:') then
            regexp_extract(rest, '^([A-Za-z][\w.-]*( [\w.-]+){0,2}) ?: ', 1)
        end as prefix
    from (select distinct title from prs) p
),

tags as (
    select
        title, 'tag' as term_kind,
        regexp_replace(lower(trim(tag)), '\s+', ' ', 'g') as term,
        trim(tag) as spelling,
        -- a one-word tag in plain lower case is a category (`[env]`, `[cfg]`): a series tag has
        -- several words or is written as a name
        case
            when contains(trim(tag), ' ')
                 or regexp_matches(trim(tag), '^.+[A-Z]|[A-Za-z]\d|\d[A-Za-z]|[A-Za-z0-9][_.][A-Za-z0-9]') then 2
            else 0
        end as shape
    -- unnested in the select list: a lateral unnest is joined back to its titles
    from (
        select
            t.title,
            unnest(list_concat(
                case when contains(t.title, '[') then flatten(list_transform(
                    regexp_extract_all(t.title, '\[([^\]]+)\]', 1), lambda g: string_split(g, ',')
                )) else [] end,
                string_split(t.scope, ','),
                case when coalesce(t.prefix, '') <> '' then [t.prefix] else [] end
            )) as tag
        from titles t
    ) u
),

-- each word of the title's rest with what stands before it, to tell a name from a sentence's
-- first word
title_words as (
    select
        t.title,
        -- chr(1) marks the start
        unnest(regexp_extract_all(chr(1) || t.rest, '([^A-Za-z0-9_.+]+)[A-Za-z0-9][A-Za-z0-9_.+]*', 1)) as before,
        unnest(regexp_extract_all(chr(1) || t.rest, '[^A-Za-z0-9_.+]+([A-Za-z0-9][A-Za-z0-9_.+]*)', 1)) as word
    from titles t
),

names as (
    select
        title, 'name' as term_kind,
        lower(trim(word, '.+')) as term,
        trim(word, '.+') as spelling,
        -- 2: written as a name (a capital inside, a digit beside a letter, `_` or `.` inside);
        -- 1: only capitalised after the title's first word (Ascend, but also User); 0: neither
        -- (most words: lower case, no digit, `_` or `.`, told without a pattern)
        case
            when lower(word) = word and not contains(word, '_') and not contains(word, '.')
                 and not regexp_matches(word, '[0-9]') then 0
            when regexp_matches(trim(word, '.+'), '^.+[A-Z]|[A-Za-z]\d|\d[A-Za-z]|[A-Za-z0-9][_.][A-Za-z0-9]') then 2
            when regexp_matches(word, '^[A-Z][a-z]')
                 and not starts_with(before, chr(1)) and not regexp_matches(before, '[:.!?]\s*$') then 1
            else 0
        end as shape
    from title_words
),

-- a language and a version (`Go 1.17`, `Rust 1.75`, `Python 3.13`): a toolchain, a name
toolchains as (
    select
        title, 'name' as term_kind,
        lower(language) || ' ' || version as term, language || ' ' || version as spelling, 2 as shape
    from (
        select
            title,
            regexp_extract(toolchain, '^\S+') as language,
            regexp_extract(toolchain, '(\d+\.\d+)$', 1) as version
        from (
            select title, unnest(regexp_extract_all(title, '(?i)\b[a-z+#]+\s+v?\d+\.\d+')) as toolchain
            from titles
        ) v
    ) v
    where lower(language) in (select lower(tag) from {{ ref('scope_tags') }} where kind = 'language')
),

title_terms as (
    select * from tags
    union all
    select * from names
    union all
    select * from toolchains
),

-- a term no title writes as a name or capitalised (shape 0 everywhere: most words) makes no
-- story, and int_weekly_story_names, which reads this step alone, never looks it up, unless
-- it names a story's platform (seeds/story_names.csv: `npu` for Ascend)
named_terms as (
    select term_kind, term from title_terms where shape > 0
    union
    select 'name', lower(word) from {{ ref('story_names') }}
),

terms as (
    select p.repo, p.week_start, p.number, t.term_kind, t.term, t.spelling, t.shape
    from prs p
    join (select * from title_terms semi join named_terms using (term_kind, term)) t
        on t.title is not distinct from p.title
)

select * from terms
