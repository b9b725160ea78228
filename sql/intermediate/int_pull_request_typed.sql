{{ config(materialized='ephemeral') }}

-- Each PR's change type, from its title's fields, labels and files: what the title alone says
-- once per distinct title, then each PR's labels, author and description. A step of
-- int_pull_requests_classified, inlined where it is read.
with titles as (
    select
        t.*,
        -- `Revert "..."`, also after a type prefix such as `fix: Revert "..."`
        regexp_matches(t.rest, '^revert\b', 'i')
            or regexp_matches(t.description, '^revert\s*:?\s*["“]', 'i') as is_revert_title,
        -- a dependency bump, whatever its files: a `(deps)` scope, or a title `bump/update X
        -- (from A) to B` or `... digest to <sha>` (a `docs:` or `test:` title keeps its type)
        len(list_filter(string_split(coalesce(t.typed_scope, ''), ','),
            lambda s: trim(s) in ('deps', 'dependencies', 'deps-dev', 'dev-deps'))) > 0
            or regexp_matches(coalesce(t.description, t.rest),
                '(?i)^(bump|bumps|update|updates|upgrade|upgrades|downgrade|pin)\s.*\s(to\s+v?\d[\w.+-]*|digest\s+to\s+[0-9a-f]{7,40})(\s+in\s+\S+)?\s*$')
            and coalesce(t.prefix_word, '') not in ('docs', 'doc', 'test', 'tests')
            as is_dependency_bump,
        coalesce(
            case when t.prefix_is_upper then v.type_of_upper_alias[t.prefix_word]
                 else v.type_of_alias[t.prefix_word] end,
            case when coalesce(t.prefix_word, '') = '' then v.type_of_upper_alias[lower(t.upper_word)] end
        ) as title_type,
        coalesce(v.type_of_emoji_code[t.emoji_code], t.emoji_match.change_type) as emoji_type,
        list_filter(
            list_transform(t.tokens, lambda x: v.type_of_alias[x]), lambda x: x is not null
        )[1] as tag_type,
        v.type_of_verb[t.first_word] as first_verb_type,
        -- the first word, or the second after a language (`python use buffered writers`), or
        -- the first of a `two words:` prefix that is no type (`New defaults: x=10`)
        coalesce(
            v.type_of_verb[t.first_word],
            v.type_of_alias[t.first_word],
            case when list_contains(v.scope_tags, t.first_word) then v.type_of_verb[t.second_word] end,
            case when contains(t.prefix_word, ' ') and v.type_of_alias[t.prefix_word] is null
                then v.type_of_verb[split_part(t.prefix_word, ' ', 1)] end
        ) as verb_type,
        list_filter(
            list_transform(t.title_words, lambda w: v.type_of_word[w]), lambda x: x is not null
        )[1] as word_type,
        -- a release or version bump: a version number, and every other word a release word, a
        -- language or the repository's name (`Python Polars 1.2.0`, `Release: v1.9`); a title
        -- without a digit has no version, and its other words are then never read (nineteen
        -- titles in twenty at scale: their tokens are not matched word by word)
        case when not regexp_matches(t.title, '\d') then [] else
            list_filter(t.title_tokens, lambda w: regexp_matches(w, '^v?\d+(\.\d+)+([-.]?(rc|a|b|alpha|beta|dev|post|pre)\.?\d*)?$'))
        end as version_tokens,
        case when not regexp_matches(t.title, '\d') then [] else
            list_filter(t.title_tokens, lambda w:
                not regexp_matches(w, '^v?\d+(\.\d+)+([-.]?(rc|a|b|alpha|beta|dev|post|pre)\.?\d*)?$')
                and not list_contains(v.language_tags, w))
        end as release_other_words,
        -- what the title says the change is for (`... to avoid X`, `... to support Y`): the
        -- earliest phrase, the longest at one place
        case when contains(lower(t.title), ' to ') then
            list_sort(list_transform(
                list_filter(v.purposes, lambda x: contains(' ' || array_to_string(t.title_words, ' ') || ' ', x.phrase)),
                lambda x: {'at': instr(' ' || array_to_string(t.title_words, ' ') || ' ', x.phrase),
                           'len': -length(x.phrase), 'change_type': x.change_type}))[1].change_type
        end as purpose_type,
        -- GitHub's title for an edit in the browser (`Update trainer.py`) says nothing
        case when not list_contains(t.title_words, 'update') then false else
            regexp_full_match(trim(t.title), '(?i)update\s+[\w./-]+\.[a-z0-9]+')
        end as web_edit_title,
        -- what a misspelling was fixed in: names (a rename), documentation, or neither said
        len(list_filter(t.title_words, lambda w: w in ('typo', 'typos'))) > 0 as names_typo,
        -- (read only beside a misspelling: words compared only in a title that says `typo`)
        case when not contains(lower(t.title), 'typo') then false else
            len(list_filter(t.title_words, lambda w: w in ('variable', 'variables', 'name', 'names', 'identifier', 'identifiers',
                'function', 'functions', 'method', 'methods', 'parameter', 'parameters', 'param', 'params',
                'argument', 'arguments', 'field', 'fields'))) > 0
        end as names_identifiers,
        case when not contains(lower(t.title), 'typo') then false else
            len(list_filter(t.title_words, lambda w: w in ('doc', 'docs', 'documentation', 'docstring', 'docstrings', 'comment',
                'comments', 'readme'))) > 0
        end as names_docs,
        case when not contains(lower(t.title), 'typo') then false else
            len(list_filter(t.title_words, lambda w: w in ('message', 'messages', 'error', 'errors', 'warning', 'warnings', 'help',
                'log', 'logs', 'output'))) > 0
        end as names_message,
        len(list_filter(t.title_words, lambda w: w in ('docstring', 'docstrings'))) > 0 as names_docstring,
        len(list_filter(t.title_words, lambda w: w in ('docstring', 'docstrings', 'comment', 'comments'))) > 0 as names_code_docs,
        -- `Update X`, `Bump X and ...`: one name, then nothing, a comma or `and`
        case when not t.first_word in ('update', 'updates', 'bump', 'bumps', 'upgrade', 'upgrades') then false else
            t.first_word in ('update', 'updates', 'bump', 'bumps', 'upgrade', 'upgrades')
                and v.type_of_word[t.second_word] is null and v.type_of_verb[t.second_word] is null
                and regexp_matches(coalesce(t.description, t.rest), '^\W*[A-Za-z]+\s+[A-Za-z][\w.-]*\s*(,|\band\b|$)')
        end as names_one_update,
        list_filter(t.title_words, lambda w: list_contains(v.performance_words, w))[1] as performance_word,
        list_filter(t.title_words, lambda w: list_contains(v.dependency_words, w))[1] as dependency_title_word,
        -- modules: bracket tokens that are not pure type words (when the title also has a
        -- `type:`, every bracket token is a module), a conventional-commit scope, and a
        -- leading `module:` that is not a type word; a scope or module written as a path
        -- (`feat(plugins/worker):`, `uv/tests:`) is its folders, each a module in turn, but
        -- for those that hold components or fixtures (`playground/ssr-vue` is `ssr-vue`)
        list_concat(
            list_filter(t.tokens, lambda x:
                v.type_of_alias[t.prefix_word] is not null
                or not list_contains(v.type_only_words, x)),
            flatten(list_transform(string_split(coalesce(t.typed_scope, ''), ','), lambda s:
                case when contains(s, '/') then list_filter(string_split(trim(lower(s), ' !'), '/'),
                    lambda x: not list_contains(v.holder_words, x))
                else [trim(lower(s), ' !')] end)),
            case
                when t.prefix_word is not null and t.prefix_word <> 'breaking'
                     and v.type_of_alias[t.prefix_word] is null and not contains(t.prefix_word, ' ')
                    then list_filter(string_split(t.prefix_word, '/'),
                        lambda x: not contains(t.prefix_word, '/') or not list_contains(v.holder_words, x))
                else []
            end
        ) as raw_modules
    from {{ ref('int_pull_request_title_fields') }} t
    cross join {{ ref('int_pull_request_class_vocabulary') }} v
),

-- a bot author's type, once per distinct author (a NULL author matches no pattern)
bots as (
    select
        a.author,
        list_filter(v.bot_types, lambda b: lower(coalesce(a.author, '')) like b.pattern)[1].change_type as bot_type
    from (
        select distinct author from {{ ref('stg_pull_requests') }}
        {{ in_run_weeks() }}
    ) a
    cross join {{ ref('int_pull_request_class_vocabulary') }} v
)

select
    t.*,  -- noqa: AM04
    list_sort(list_filter(
        list_transform(t.label_names, lambda l: v.type_of_alias[
            case when contains(l, ':') or contains(l, '/') then regexp_replace(l, '^(type|kind)\s*[:/]\s*', '') else l end]),
        lambda x: x is not null
    ))[1] as label_type,
    -- a revert the description opens with (`This reverts commit ...`, `Reverts #N`): one
    -- further down is a squashed commit that reverted another of the same PR (the regexes on
    -- the description run only where a cheap search finds the word they need)
    case when t.body ilike '%revert%' then
        regexp_matches(t.body, '(?i)^\s*(#[^\n]*\n\s*)*(this reverts commit [0-9a-f]{7,40}|reverts?\s+([\w.-]+/[\w.-]+)?#\d+)')
    else false end as is_revert_body,
    b.bot_type,
    case
        when list_contains(t.tokens, 'breaking') then 'title_tag'
        when t.typed_bang then 'title_bang'
        when t.prefix_word = 'breaking' then 'title_prefix'
        when len(list_filter(t.label_names, lambda l: l in ('breaking', 'breaking change', 'breaking-change'))) > 0
            then 'label'
    end as breaking_signal,
    list_filter(
        list_transform(t.label_names, lambda l:
            case when contains(l, ':') or contains(l, '/') then
                regexp_extract(l, '^(area|module|component|comp|scope)\s*[:/]\s*(.+)$', 2) else '' end),
        lambda x: x <> ''
    ) as label_areas,
    -- `Reverts #N` / `Reverts owner/name#N` in the description, or `(#N)` closing the
    -- quoted title of a `Revert "..."`
    nullif(coalesce(
        case when t.body ilike '%revert%' then
            nullif(regexp_extract(t.body, '(?im)^\s*reverts?\s+(?:[\w.-]+/[\w.-]+)?#(\d+)', 1), '')
        end,
        nullif(regexp_extract(t.title, '(?i)revert\s*:?\s*["“].*\(#(\d+)\)\s*["”]?\s*$', 1), '')
    ), '') as revert_number_text,
    case when contains(t.body, 'This reverts commit ') then
        nullif(regexp_extract(t.body, 'This reverts commit ([0-9a-f]{7,40})', 1), '')
    end as revert_commit,
    nullif(lower(trim(regexp_extract(t.title, '(?i)revert\s*:?\s*["“](.+)["”]\s*$', 1))), '') as revert_quoted_title,
    case
        when contains(t.title, '#') or contains(t.body, '#') or contains(t.title, '/pull/') or contains(t.body, '/pull/') then
            list_distinct(list_transform(
                regexp_extract_all(t.title || chr(10) || t.body, '(?:#|/pull/)(\d{1,9})\b', 1),
                lambda n: cast(n as bigint)
            ))
        else []
    end as referenced_numbers
from (
    select
        p.*,
        t.* exclude (title),
        list_transform(coalesce(p.labels, []), lambda l: lower(trim(l))) as label_names,
        regexp_replace(lower(string_split(p.repo, '/')[2]), '[-_. ]', '', 'g') as repo_key
    from {{ ref('stg_pull_requests') }} p
    join titles t using (title)
    {{ in_run_weeks(of='p') }}
) t
cross join {{ ref('int_pull_request_class_vocabulary') }} v
left join bots b using (author)
