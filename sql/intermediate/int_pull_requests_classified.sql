{{ config(materialized='incremental') }}

-- Change type, areas, breaking and performance markers, file signals and the PR numbers a
-- pull request names, for each merged pull request.
--
-- Change type, first signal that decides: a label (seeds/change_type_aliases.csv); a title
-- that starts with `Revert`; a dependency bump (a `(deps)` scope, `Bump X from A to B`,
-- `Update X to vN`, `... digest to <sha>`), whatever its files; for a change without code,
-- what its files are (repository housekeeping such as a changelog or CODEOWNERS is a chore;
-- CI, tests or documentation, a `[ci]` module counting as `ci:`; example scripts and
-- `docs_src/` count as documentation; documentation's images, data and templates without its
-- prose are what an explicit chore type says); a revert the description opens with; a
-- misspelling fixed in names (a rename) or in documentation, a small fix of a docstring; a
-- weak title type or gitmoji that its verb overrides (`feat: optimize ...`, `chore: add ...
-- tests`, `♻️ Update X` changing a manifest); the title's `type:` after its [modules] or a
-- conventional commit `type(scope)!:` or `type[scope]:`, or an upper-case prefix such as
-- `ENH:` or `MNT `; a chore gitmoji that gives way to what the title says the change is for
-- (`... to avoid X`, seeds/title_purposes.csv); a gitmoji or emoji prefix
-- (seeds/title_emoji.csv; another emoji names no type); a bracket tag such as [Bugfix]; a
-- release or version-bump title (seeds/release_words.csv), or a language and a version
-- (`Rust 1.75`); a bot author (seeds/bot_authors.csv); a description that says it fixes a
-- bug, over a weak title verb; the title's first word (seeds/title_verbs.csv; `Remove X` that
-- deletes X's files is a chore, one that adds four times what it deletes a fix, `Use X 3.0`
-- or `Update X` changing a manifest a bump, a title naming tests that changes CI and no test
-- a CI change, a weak verb giving way to what the change is for: `Move X to reduce peak
-- memory`), GitHub's `Update <file>` naming none; then any word of it that counts anywhere;
-- the description (a checked type box, `Fixes #N`, its first verb, after a bullet's `[tag]`);
-- what the title says the change is for; the paths again (dependency manifests only, files
-- deleted and next to nothing added a chore, a new source file or code added and at most a
-- quarter as much removed a feature, code changed in place a refactor when more was removed
-- than added, else a fix); else `other`. Title scopes that name a language, layer or
-- catch-all (seeds/scope_tags.csv) or the repository are tags, not areas. With no tag naming
-- an area, a code span of the title
-- whose two words or more name a changed file (`pip compile` names `pip_compile.rs`) places the
-- PR in what it names (title_file_area), else a word of the title naming one of the path
-- areas places it there (title_named).
with prs as (
    select * from {{ ref('stg_pull_requests') }}
    {{ in_run_weeks() }}
),

-- read twice (file signals, area lines): scanning the table again costs less than the copy of
-- all its rows that DuckDB keeps for a CTE used twice
files as not materialized (
    select * from {{ ref('int_pull_request_files') }}
    {{ in_run_weeks() }}
),

settings as (
    select
        max(value) filter (where name = 'path_area_min_share') as path_area_min_share,
        max(value) filter (where name = 'helper_area_weight') as helper_area_weight,
        (select list(distinct lower(tag)) from {{ ref('scope_tags') }} where kind in ('generic', 'catch_all'))
            as catch_all_areas
    from {{ ref('thresholds') }}
),

-- the seeds as lists and maps, so the rules below look words up in one step
vocabulary as (
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
),

repo_area_aliases as (
    select repo, map(list(lower(alias)), list(coalesce(area, ''))) as area_of_alias
    from {{ ref('area_aliases') }}
    where repo <> '*'
    group by repo
),

-- file signals per pull request; areas from the paths weigh changed lines, tests counting only
-- when nothing else changed
file_signals as (
    select
        repo,
        number,
        bool_or(is_test) as touches_tests,
        -- example scripts and notebooks count as documentation, not code (as do the
        -- documentation's own sources, `docs_src/`, which are no code at all)
        bool_or(is_code and not is_example) as has_code,
        -- the lines of example code, the documentation's code samples among them
        coalesce(sum(lines) filter (where not (is_test or is_ci)
            and regexp_matches(path, '(^|/)(examples?|docs?[_-](src|sources?|examples?))/')
            and not regexp_matches(path, '\.(md|mdx|rst|txt|adoc|ipynb)$')), 0) as example_lines,
        -- program source: not examples, dependency files or what the tests exercise
        bool_or(is_source and not is_example and not is_dependency and not is_fixture) as has_source,
        coalesce(sum(lines) filter (where is_ci), 0) as ci_lines,
        coalesce(sum(lines) filter (where is_test and not is_ci), 0) as test_lines,
        bool_and(is_dependency) as dependency_only,
        bool_or(dependency_kind in ('list', 'lock')) as lists_dependencies,
        bool_and(is_changelog) as changelog_only,
        -- repository housekeeping under .github/ that is no CI: code owners, issue and PR
        -- templates, funding
        bool_and(regexp_matches(path, '(^|/)CODEOWNERS$|^\.github/(ISSUE_TEMPLATE/|PULL_REQUEST_TEMPLATE|FUNDING\.ya?ml$)'))
            as housekeeping_only,
        -- documentation prose (not its images, data files or site templates)
        coalesce(sum(lines) filter (where is_doc and regexp_matches(path, '\.(md|mdx|rst|txt|adoc|ipynb)$|(^|/)README[^/]*$', 'i')), 0)
            as prose_lines,
        bool_or(change_type = 'DELETED') as deletes_files,
        bool_or(not is_test) as has_non_test,
        sum(lines) as total_lines,
        coalesce(sum(lines) filter (where is_code), 0) as code_lines,
        min(path) filter (where change_type = 'ADDED' and is_source
            and not regexp_matches(path, '(^|/)__init__\.py$')) as new_module_path,
        list_sort(list(path) filter (where is_dependency)) as dependency_paths,
        string_agg(path_key, '') as path_keys,
        -- the lines the areas below share, as area_lines counts them (tests only when nothing
        -- else changed, manifests not beside the lists of a PR of dependency files alone)
        case
            when bool_or(not is_test) and bool_and(is_dependency) and bool_or(dependency_kind in ('list', 'lock'))
                then sum(lines * case when is_helper then st.helper_area_weight else 1 end)
                    filter (where not is_test and dependency_kind is distinct from 'manifest')
            when bool_or(not is_test)
                then sum(lines * case when is_helper then st.helper_area_weight else 1 end) filter (where not is_test)
            when bool_and(is_dependency) and bool_or(dependency_kind in ('list', 'lock'))
                then sum(lines * case when is_helper then st.helper_area_weight else 1 end)
                    filter (where dependency_kind is distinct from 'manifest')
            else sum(lines * case when is_helper then st.helper_area_weight else 1 end)
        end as area_lines_total
    from files
    cross join settings st
    group by repo, number
),

-- the lines that place a PR, by area: tests count only when nothing else changed; a helper (an
-- area below utils/) weighs helper_area_weight of its lines; a PR changing dependency files
-- alone is placed by its lists and lock files when it changed any (the manifests changed to
-- carry them). `source_lines`: with program source changed, the lines of code (examples too),
-- container builds and CI, not of the docs, dependency files or what the tests exercise
-- (playground/, fixtures/), which give way to them.
area_lines as (
    select
        f.repo,
        f.number,
        f.area,
        sum(f.lines * case when f.is_helper then st.helper_area_weight else 1 end) as lines,
        coalesce(sum(f.lines * case when f.is_helper then st.helper_area_weight else 1 end) filter (
            where not s.has_source or f.is_ci
                or (f.is_code and not f.is_fixture and coalesce(f.dependency_kind, 'container') = 'container')
        ), 0) as source_lines,
        s.area_lines_total,
        -- the folders and names of the area's source files without `-_. `
        -- (`:crates:puffincache:src:lib:`), which a title's words may name (not CI workflows,
        -- whose names are a test's, a model's, a build's)
        coalesce(string_agg(substr(f.path_key, instr(f.path_key, '/:') + 1), '') filter (
            where not f.is_ci and (not s.has_source
                or (f.is_code and not f.is_fixture and coalesce(f.dependency_kind, 'container') = 'container'))
        ), '') as area_keys
    from files f
    join file_signals s using (repo, number)
    cross join settings st
    where (not f.is_test or not s.has_non_test)
        and not (s.dependency_only and s.lists_dependencies and f.dependency_kind = 'manifest')
    group by f.repo, f.number, f.area, s.area_lines_total
),

path_areas as (
    select
        a.repo,
        a.number,
        -- a catch-all (`root` for top-level files, `misc`, `utils`; seeds/scope_tags.csv) only
        -- when nothing else changed
        first(a.area order by list_contains(st.catch_all_areas, ltrim(a.area, '_')), a.source_lines = 0,
            case when a.source_lines > 0 then a.source_lines else a.lines end desc, a.area asc)
            as primary_path_area,
        -- in no order (a title's module is looked up in it; an ordered aggregate sorts)
        list(a.area) as all_path_areas,
        list_sort(list(a.area) filter (where a.lines >= st.path_area_min_share * a.area_lines_total))
            as path_areas,
        -- the areas that can lead by the title's words: of path_areas, not a catch-all
        list({'area': a.area, 'keys': a.area_keys,
              'weight': case when a.source_lines > 0 then a.source_lines else a.lines end})
            filter (where a.lines >= st.path_area_min_share * a.area_lines_total and a.source_lines > 0
                and not list_contains(st.catch_all_areas, ltrim(a.area, '_'))) as nameable_areas
    from area_lines a
    cross join settings st
    group by a.repo, a.number
),

-- a gitmoji `:code:` or an emoji opening the title gives a type and is left out of the rest
-- (the emoji are compared only with a title that opens with the first character of one)
emoji_prefixes as (
    select
        p.* exclude (plain_title),
        nullif(regexp_extract(p.title, '^\s*:([a-z0-9_+-]+):', 1), '') as emoji_code,
        p.plain_title,
        case when list_contains(v.emoji_firsts, left(p.plain_title, 1)) or list_contains(v.emoji_firsts, '') then
            list_filter(v.emoji_types, lambda e: starts_with(p.plain_title, e.emoji))[1]
        end as emoji_match
    from (select *, replace(ltrim(title), chr(65039), '') as plain_title from prs) p
    cross join vocabulary v
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
        end as parse_title,
        list_transform(coalesce(labels, []), lambda l: lower(trim(l))) as label_names
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
        regexp_replace(lower(string_split(repo, '/')[2]), '[-_. ]', '', 'g') as repo_key
    from title_prefixes
),

typed as (
    select
        t.*,
        list_sort(list_filter(
            list_transform(t.label_names, lambda l: v.type_of_alias[regexp_replace(l, '^(type|kind)\s*[:/]\s*', '')]),
            lambda x: x is not null
        ))[1] as label_type,
        -- `Revert "..."`, also after a type prefix such as `fix: Revert "..."`
        regexp_matches(t.rest, '^revert\b', 'i')
            or regexp_matches(t.description, '^revert\s*:?\s*["“]', 'i') as is_revert_title,
        -- a revert the description opens with (`This reverts commit ...`, `Reverts #N`): one
        -- further down is a squashed commit that reverted another of the same PR
        regexp_matches(t.body, '(?i)^\s*(#[^\n]*\n\s*)*(this reverts commit [0-9a-f]{7,40}|reverts?\s+([\w.-]+/[\w.-]+)?#\d+)')
            as is_revert_body,
        -- a dependency bump, whatever its files: a `(deps)` scope, or a title `bump/update X
        -- (from A) to B` or `... digest to <sha>` (a `docs:` or `test:` title keeps its type)
        list_has_any(list_transform(string_split(coalesce(t.typed_scope, ''), ','), lambda s: trim(s)),
            ['deps', 'dependencies', 'deps-dev', 'dev-deps'])
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
        -- language or the repository's name (`Python Polars 1.2.0`, `Release: v1.9`)
        list_filter(t.title_tokens, lambda w: regexp_matches(w, '^v?\d+(\.\d+)+([-.]?(rc|a|b|alpha|beta|dev|post|pre)\.?\d*)?$'))
            as version_tokens,
        list_filter(t.title_tokens, lambda w:
            not regexp_matches(w, '^v?\d+(\.\d+)+([-.]?(rc|a|b|alpha|beta|dev|post|pre)\.?\d*)?$')
            and not list_contains(v.language_tags, w)) as release_other_words,
        list_filter(v.bot_types, lambda b: lower(coalesce(t.author, '')) like b.pattern)[1].change_type as bot_type,
        -- what the title says the change is for (`... to avoid X`, `... to support Y`): the
        -- earliest phrase, the longest at one place
        case when contains(lower(t.title), ' to ') then
            list_sort(list_transform(
                list_filter(v.purposes, lambda x: contains(' ' || array_to_string(t.title_words, ' ') || ' ', x.phrase)),
                lambda x: {'at': instr(' ' || array_to_string(t.title_words, ' ') || ' ', x.phrase),
                           'len': -length(x.phrase), 'change_type': x.change_type}))[1].change_type
        end as purpose_type,
        -- GitHub's title for an edit in the browser (`Update trainer.py`) says nothing
        regexp_full_match(trim(t.title), '(?i)update\s+[\w./-]+\.[a-z0-9]+') as web_edit_title,
        -- what a misspelling was fixed in: names (a rename), documentation, or neither said
        list_has_any(t.title_words, ['typo', 'typos']) as names_typo,
        list_has_any(t.title_words, ['variable', 'variables', 'name', 'names', 'identifier', 'identifiers',
            'function', 'functions', 'method', 'methods', 'parameter', 'parameters', 'param', 'params',
            'argument', 'arguments', 'field', 'fields']) as names_identifiers,
        list_has_any(t.title_words, ['doc', 'docs', 'documentation', 'docstring', 'docstrings', 'comment',
            'comments', 'readme']) as names_docs,
        list_has_any(t.title_words, ['message', 'messages', 'error', 'errors', 'warning', 'warnings', 'help',
            'log', 'logs', 'output']) as names_message,
        list_has_any(t.title_words, ['docstring', 'docstrings']) as names_docstring,
        list_has_any(t.title_words, ['docstring', 'docstrings', 'comment', 'comments']) as names_code_docs,
        -- `Update X`, `Bump X and ...`: one name, then nothing, a comma or `and`
        t.first_word in ('update', 'updates', 'bump', 'bumps', 'upgrade', 'upgrades')
            and v.type_of_word[t.second_word] is null and v.type_of_verb[t.second_word] is null
            and regexp_matches(coalesce(t.description, t.rest), '^\W*[A-Za-z]+\s+[A-Za-z][\w.-]*\s*(,|\band\b|$)')
            as names_one_update,
        list_filter(t.title_words, lambda w: list_contains(v.performance_words, w))[1] as performance_word,
        list_filter(t.title_words, lambda w: list_contains(v.dependency_words, w))[1] as dependency_title_word,
        case
            when list_contains(t.tokens, 'breaking') then 'title_tag'
            when t.typed_bang then 'title_bang'
            when t.prefix_word = 'breaking' then 'title_prefix'
            when list_has_any(t.label_names, ['breaking', 'breaking change', 'breaking-change']) then 'label'
        end as breaking_signal,
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
        ) as raw_modules,
        list_filter(
            list_transform(t.label_names, lambda l:
                regexp_extract(l, '^(area|module|component|comp|scope)\s*[:/]\s*(.+)$', 2)),
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
        nullif(regexp_extract(t.body, 'This reverts commit ([0-9a-f]{7,40})', 1), '') as revert_commit,
        nullif(lower(trim(regexp_extract(t.title, '(?i)revert\s*:?\s*["“](.+)["”]\s*$', 1))), '') as revert_quoted_title,
        case
            when contains(t.title || t.body, '#') or contains(t.title || t.body, '/pull/') then
                list_distinct(list_transform(
                    regexp_extract_all(t.title || chr(10) || t.body, '(?:#|/pull/)(\d{1,9})\b', 1),
                    lambda n: cast(n as bigint)
                ))
            else []
        end as referenced_numbers
    from title_fields t
    cross join vocabulary v
),

-- every column of typed passes through, so that typed has one reader and DuckDB does not
-- keep a copy of it
modules as (
    select
        t.*,
        -- in title order: the first named module is the primary area; an area an alias
        -- (seeds/area_aliases.csv) or a label gives is `trusted`, any other must name code the
        -- PR changes (checked in classified, beside the files)
        list_filter(
            -- a version is no part of a module's name: `[python 0.6.7]` is the tag `python`
            -- each with its key, the name without `-_. ` that the paths are compared in
            list_transform(list_transform(list_concat(t.raw_modules, t.label_areas), lambda x, i: {  -- noqa: LT01
                'area': coalesce(r.area_of_alias[x], v.area_of_alias[x],
                    replace(trim(regexp_replace(x, '(^|\s)v?\d+(\.\d+)+\S*', ' ', 'g')), ' ', '_')),
                'trusted': r.area_of_alias[x] is not null or v.area_of_alias[x] is not null
                    or i > len(t.raw_modules)
            }), lambda x: {
                'area': x.area, 'trusted': x.trusted,
                'key': replace(replace(replace(replace(x.area, '-', ''), '_', ''), '.', ''), ' ', '')}),
            lambda x: x.area <> '' and not list_contains(v.scope_tags, x.area)
                -- the repository's name, alone or with a language (`py-polars`)
                and not {{ names_repository('x.key', 't.repo_key', 'v.language_tags') }}
        ) as named_area_items,
        case when len(t.version_tokens) > 0 then
            coalesce(list_bool_and(list_transform(t.release_other_words, lambda w:
                list_contains(v.release_words, w)
                or {{ names_repository("regexp_replace(w, '[-_. ]', '', 'g')", 't.repo_key', 'v.language_tags') }})), true)
            and (len(t.release_other_words) > 0 or len(t.title_tokens) = len(t.version_tokens))
        else false end as is_release_title,
        -- a language and a version, nothing else: a toolchain bump (`Rust 1.75`)
        len(t.version_tokens) > 0 and len(t.release_other_words) = 0
            and list_has_any(t.title_tokens, v.language_tags) as is_toolchain_title
    from typed t
    cross join vocabulary v
    left join repo_area_aliases r using (repo)
),

-- the description, read only where nothing before it decided: a checked box that names a
-- type (`- [x] Bug fix (non-breaking change ...)`), `Fixes #N`, else the verb opening its
-- first line of prose (`This PR adds ...`)
described as (
    select
        m.* replace (
            -- a weak first verb (add, update, remove, ...) gives way to a word of the title that
            -- names docs, tests, CI, performance or a fix: `Add tests for ...`, `Improve read
            -- performance`
            case
                when m.web_edit_title then null
                when m.verb_type in ('feat', 'chore', 'refactor')
                     and m.word_type in ('docs', 'test', 'ci', 'perf', 'fix')
                    then m.word_type
                else m.verb_type
            end as verb_type
        ),
        -- a weak title type (or gitmoji) gives way to what its verb says: `feat: optimize ...`
        -- is performance work, `chore: fix ...` a fix, `feat: update X to 1.2` a version bump,
        -- `chore: add ... tests` tests
        case
            when coalesce(m.title_type, m.emoji_type) in ('feat', 'refactor', 'chore')
                 and m.first_verb_type = 'perf' then 'perf'
            when coalesce(m.title_type, m.emoji_type) = 'chore' and m.first_verb_type = 'fix' then 'fix'
            when coalesce(m.title_type, m.emoji_type) in ('feat', 'refactor') and m.first_verb_type = 'chore'
                 and regexp_matches(m.title, '(^|[\s=<>(v])\d+(\.\d+)+') then 'chore'
            when m.title_type = 'chore' and m.word_type = 'test' then 'test'
        end as verb_over_type,
        case when coalesce(m.label_type, m.title_type, m.emoji_type, m.tag_type, m.bot_type,
                           m.verb_type, m.word_type) is null
                  and not m.is_revert_title and not m.is_release_title then
            coalesce(
                case when contains(m.body, '[x]') or contains(m.body, '[X]') then
                    list_filter(list_transform(
                        regexp_extract_all(m.body, '(?m)^\s*[-*]\s*\[[xX]\]\s*([A-Za-z][A-Za-z /-]*[A-Za-z])', 1),
                        lambda x: v.type_of_alias[lower(trim(x))]), lambda x: x is not null)[1]
                end,
                case when (contains(m.body, '#') or contains(m.body, '/issues/'))
                          and regexp_matches(m.body, '(?i)\b(fix(es|ed)?|resolve[sd]?)\s*:?\s+(https://github\.com/[\w.-]+/[\w.-]+/issues/\d+|([\w.-]+/[\w.-]+)?#\d+)')
                    then 'fix'
                end,
                v.type_of_verb[lower(regexp_extract(m.body,
                    '(?m)^[ \t]*(?:[-*+][ \t]+)?(?:\[[^\]\n]*\][ \t]*)?(?:(?i:this (?:pr|pull request|change|commit|patch))[ \t]+)?([A-Za-z]+)', 1))]
            )
        end as description_type,
        -- a description that says the change fixes a bug (`This resolves the issue with ...`,
        -- `This PR addresses this regression`; not `Also fixes a bug`, a side fix), where only a
        -- weak title verb (add, update, remove, ...) would say otherwise
        m.verb_type in ('feat', 'chore', 'refactor') and m.title_type is null and m.emoji_type is null
            and regexp_matches(m.body,
                '(?i)\b(this|it|which)(\s+(pr|pull request|change|patch|commit))?\s+(will\s+)?(fix(es)?|resolves?|solves?|address(es)?)\s+(the|an?|this|that)\s+(\w+\s+){0,2}(issue|bug|problem|crash|error|regression|race|deadlock|hang)\b')
            as description_fixes
    from modules m
    cross join vocabulary v
),

-- the PR beside its file signals and path areas (as the structs `f` and `pa`), with what they
-- decide together: a plain join, which DuckDB streams (a lateral join made it keep a copy of
-- every row, 5 GB at a million PRs)
placed as (
    select
        p.*,
        f,
        pa,
        -- a change without code is what its files are, whatever the title says: the kind the
        -- title's type names if it changed any, else the kind with the most changed lines (CI,
        -- then tests, then documentation on a tie)
        -- misspellings fixed in code: in names a rename, in documentation or comments
        -- documentation, after `chore:` a rename; a small fix of a docstring (no test changed)
        -- documentation
        case
            when p.names_typo and f.has_code and coalesce(p.title_type, p.emoji_type, '') <> 'docs'
                 and coalesce(len(f.dependency_paths), 0) = 0 and not contains(lower(p.title), ' and ') then
                case
                    when p.names_identifiers then 'refactor'
                    when p.names_docs then 'docs'
                    when p.names_message then null  -- a message users read: what the title says
                    when coalesce(p.title_type, p.emoji_type) in ('chore', 'refactor') then 'refactor'
                end
            when p.names_docstring and coalesce(p.title_type, p.emoji_type, p.first_verb_type) in ('fix', 'chore', 'refactor')
                 and p.additions + p.deletions <= 20 and not coalesce(f.touches_tests, false) then 'docs'
        end as typo_or_docstring_type,
        struct_pack(non_code_type := case when not f.has_code and p.files_complete then
            case
                when f.changelog_only or f.housekeeping_only then 'chore'  -- repository housekeeping
                -- `ci:`, or a `[ci]` module in a `[modules] type:` title
                when (p.title_type = 'ci' or p.tag_type = 'ci') and f.ci_lines > 0 then 'ci'
                when p.title_type = 'test' and f.test_lines > 0 then 'test'
                when p.title_type = 'docs' and (f.ci_lines + f.test_lines < f.total_lines or p.names_code_docs)
                    then 'docs'
                -- documentation's images, data files and templates without its prose (a banner,
                -- a sponsors list): what an explicit chore type or gitmoji says
                when coalesce(p.title_type, p.emoji_type) = 'chore' and f.example_lines = 0
                     and f.prose_lines * 2 < f.total_lines - f.ci_lines - f.test_lines
                    then 'chore'
                when f.ci_lines > 0 and f.ci_lines >= greatest(f.test_lines, f.total_lines - f.ci_lines - f.test_lines) then 'ci'
                when f.test_lines > 0 and f.test_lines >= f.total_lines - f.ci_lines - f.test_lines then 'test'
                else 'docs'
            end
            end) as k,
        -- a title's tag is an area when it names a folder or module the files touch, or the area
        -- of one (`[ci]` for .github/), compared without case and `-_. ` and as the start of a
        -- folder's or name's word (`AsyncGRPO` names `async_grpo/`, `algo` `core_algos.py`), spelt
        -- as the path area it names; a series name (`[sparse refactor]`) is not. With a cut or
        -- unknown file list, kept.
        struct_pack(named_areas := list_transform(
            list_filter(p.named_area_items,
                lambda x: x.trusted or not p.files_complete
                    or contains(f.path_keys, '/' || x.key) or contains(f.path_keys, ':' || x.key)
                    -- a plural naming a folder or name in the singular (`[workers]`, `worker/`)
                    or ends_with(x.key, 's') and length(x.key) > 3
                       and contains(f.path_keys, ':' || left(x.key, length(x.key) - 1) || ':')
                    -- a path area's key (`asyncgrpo` for `async_grpo`)
                    or list_contains(list_transform(pa.all_path_areas, lambda a:
                        replace(replace(replace(replace(a, '-', ''), '_', ''), '.', ''), ' ', '')), x.key)),
            -- spelt as the path area it names (also in the singular or plural: `[model]` names
            -- `models/`, `[workers]` `worker/`; or after the repository's name: `netrc` names
            -- `uv-netrc`), else as the tag when it separates its words
            -- (`bundled-dev`, not `bundleddev`), else as the folder or module it names
            lambda x: coalesce(
                list_filter(list_sort(pa.all_path_areas), lambda a:
                    replace(replace(replace(replace(a, '-', ''), '_', ''), '.', ''), ' ', '') = x.key)[1],
                list_filter(list_sort(pa.all_path_areas), lambda a:
                    replace(replace(replace(replace(a, '-', ''), '_', ''), '.', ''), ' ', '')
                        in (x.key || 's', left(x.key, length(x.key) - 1)) and length(x.key) > 3)[1],
                -- or after the repository's name (`netrc` names `uv-netrc`)
                list_filter(list_sort(pa.all_path_areas), lambda a:
                    replace(replace(replace(replace(a, '-', ''), '_', ''), '.', ''), ' ', '') = p.repo_key || x.key)[1],
                case when regexp_matches(x.area, '[-_]') then replace(x.area, '-', '_') end,
                case when not x.trusted and p.files_complete and not contains(f.path_keys, '/' || x.area || '/') then
                    list_filter(string_split(f.path_keys, '/'), lambda s:
                        replace(replace(replace(replace(s, '-', ''), '_', ''), '.', ''), ' ', '') = x.key)[1]
                end,
                x.area)
        )) as na,
        -- the title's words that may name an area of its files: with no tag naming one and no
        -- dependency bump (its title names the dependency), words of three letters or more,
        -- code split at its capitals (`CacheEntry`: `cache`, `entry`), not its verb, a type
        -- word, a scope tag or a container folder (`crates`)
        struct_pack(words := case when len(p.named_area_items) = 0 and len(pa.nameable_areas) > 1
                and not p.is_dependency_bump and not coalesce(f.dependency_only, false) then
            list_filter(list_distinct(regexp_split_to_array(lower(regexp_replace(
                coalesce(p.description, p.rest), '([a-z0-9])([A-Z])', '\1 \2', 'g')), '[^a-z0-9]+')),
                lambda w: length(w) >= 3 and w is distinct from p.first_word and v.type_of_word[w] is null
                    and v.type_of_alias[w] is null and not list_contains(v.scope_tags, w)
                    and not list_contains(v.container_words, w))
        end,
        -- and all of them in order, between colons (`:respect:string:cache:scope:`)
        sequence := case when len(p.named_area_items) = 0 and len(pa.nameable_areas) > 1 then
            ':' || array_to_string(regexp_split_to_array(lower(regexp_replace(
                coalesce(p.description, p.rest), '([a-z0-9])([A-Z])', '\1 \2', 'g')), '[^a-z0-9]+'), ':') || ':'
        end) as tw
    from described p
    cross join vocabulary v
    left join file_signals f using (repo, number)
    left join path_areas pa using (repo, number)
),

-- the area the title's words name among those the changed lines place the PR in, when they
-- name not every such area: a word that is a whole folder or file name of its source files
-- (`specification` names `specification.rs`, `csv` a folder `csv/`), or the words of its name
-- in order (`StringCache` names `string_cache`, `chat templates` `chat_templates`), past a
-- first word that is the repository's or that another of them shares (`uv audit` names
-- `uv-audit`, `CacheEntry` `puffin-cache` beside `puffin-distribution`; `token` does not
-- name `gspo_token`); of those named, the one with the most lines
title_named as (
    select
        p.* exclude (candidates),
        case when len(list_filter(p.candidates, lambda a: a.named)) between 1 and len(p.candidates) - 1 then
            list_sort(list_transform(
                list_filter(p.candidates, lambda a: a.named),
                lambda a: {'weight': -a.weight, 'area': a.area}))[1].area
        end as title_area,
        -- a code span of the title that is a command line whose first two words or more are
        -- together the name of a changed file or folder (`pip compile -r x.toml` names
        -- `pip_compile.rs`, `uv cache clean` the crate `uv-cache/`), or a file name that is
        -- whole the name of one (`pylock.toml` names `pylock_toml.rs`, the module reading it;
        -- not `dpo_trainer.py`, a file named as itself): the command or file it names, a file
        -- without its extension, spelt as the path area, folder or file it names; not a test's
        -- name, nor an identifier (`top_k`, `fill_null()`: a function names no area)
        list_filter(list_transform(
            list_filter(regexp_extract_all(p.title, '`([^`]+)`', 1), lambda c:
                regexp_matches(trim(c), '^[A-Za-z][\w.-]*( +[\w.=/-]+)+$|^[\w-]+\.[a-z]+$')),
            lambda c: list_transform([{
                    'words': list_filter(string_split_regex(lower(c), '[^a-z0-9]+'), lambda w: w <> ''),
                    'is_file': regexp_matches(trim(c), '^[\w-]+\.[a-z]+$')}],
                lambda s: list_filter(list_transform(range(len(s.words), 1, -1), lambda n:
                    case when s.words[1] not in ('test', 'tests') and (n = len(s.words) or not s.is_file)
                              and contains(p.f.path_keys, ':' || array_to_string(s.words[1:n], '') || ':') then
                        coalesce(
                            list_filter(list_sort(p.pa.all_path_areas), lambda a:
                                replace(replace(replace(a, '-', ''), '_', ''), '.', '') = array_to_string(s.words[1:n], ''))[1],
                            case when not s.is_file then
                                list_filter(string_split(p.f.path_keys, '/'), lambda x:
                                    replace(replace(replace(x, '-', ''), '_', ''), '.', '') = array_to_string(s.words[1:n], ''))[1]
                            end,
                            array_to_string(s.words[1:case when s.is_file then n - 1 else n end], '_'))
                    end), lambda a: a is not null)[1])[1]),
            lambda a: a is not null)[1] as title_file_area
    from (
        select
            p.*,
            case when len(p.tw.words) > 0 then list_transform(p.pa.nameable_areas, lambda a: {
                'area': a.area,
                'weight': a.weight,
                'named': list_bool_or(list_transform(p.tw.words, lambda w:
                        contains(a.keys, ':' || w || ':')
                        and len(list_filter(p.pa.nameable_areas, lambda b: contains(b.keys, ':' || w || ':')))
                            < len(p.pa.nameable_areas)))
                    or (contains(a.area, '-') or contains(a.area, '_') or list_contains(p.tw.words, a.area))
                    and contains(p.tw.sequence, ':' || array_to_string(
                        case when regexp_extract(a.area, '^[a-z0-9]+[-_. ]', 0) <> ''
                                  and (regexp_extract(a.area, '^[a-z0-9]+', 0) = p.repo_key
                                       or list_bool_or(list_transform(p.pa.nameable_areas, lambda b:
                                           b.area <> a.area and starts_with(b.area, regexp_extract(a.area, '^[a-z0-9]+[-_. ]', 0)))))
                            then string_split_regex(a.area, '[-_. ]+')[2:]
                            else string_split_regex(a.area, '[-_. ]+')
                        end, ':') || ':')
            }) end as candidates
        from placed p
    ) p
),

classified as (
    select
        p.repo,
        p.week_start,
        p.number,
        p.merged_at,
        p.title,
        p.files_known,
        p.files_complete,
        coalesce(
            p.label_type,
            case when p.is_revert_title then 'revert' end,
            case when p.is_dependency_bump and not p.is_release_title then 'chore' end,
            k.non_code_type,
            case when p.is_revert_body then 'revert' end,
            -- misspellings fixed in code are renames (in docstrings, documentation); a fix of
            -- a docstring is documentation
            p.typo_or_docstring_type,
            p.verb_over_type,
            -- `refactor: update X` (or its gitmoji) that changes a dependency manifest bumps X
            case when coalesce(p.title_type, p.emoji_type) in ('feat', 'refactor')
                      and p.first_verb_type = 'chore' and len(f.dependency_paths) > 0 then 'chore' end,
            p.title_type,
            -- a chore gitmoji (often a pun: 📦 for packing) gives way to what the title says the
            -- change is for, unless it changes a dependency manifest
            case when p.emoji_type = 'chore' and p.purpose_type is not null and coalesce(len(f.dependency_paths), 0) = 0
                then p.purpose_type end,
            p.emoji_type,
            p.tag_type,
            case when p.is_release_title or p.is_toolchain_title then 'chore' end,
            p.bot_type,
            case when p.description_fixes then 'fix' end,
            -- removing a component (its files deleted, next to nothing added) is a chore;
            -- removing code from files that stay, a refactor
            case
                -- `Update X` that changes a dependency manifest updates the dependency X
                when p.names_one_update and len(f.dependency_paths) > 0 then 'chore'
                when p.verb_type = 'refactor' and f.deletes_files and p.additions * 10 <= p.deletions
                      and p.first_word in ('remove', 'removes', 'drop', 'drops', 'delete', 'deletes')
                then 'chore'
                -- `Use arrow 3.0.0` that changes a dependency manifest: a dependency bump
                when p.verb_type = 'refactor' and len(f.dependency_paths) > 0
                     and regexp_matches(p.title, '(^|[\s=<>(v])\d+(\.\d+)+') then 'chore'
                -- "Remove X" that adds four times what it deletes removes X from what the program
                -- does (quotes from a specifier, a stale entry): a repair
                when p.verb_type in ('refactor', 'chore') and p.deletions > 0 and p.additions >= 4 * p.deletions
                     and p.first_word in ('remove', 'removes', 'drop', 'drops', 'strip', 'strips', 'delete', 'deletes')
                    then 'fix'
                -- a title that says tests, where no test file changed but CI did
                when p.verb_type = 'test' and p.word_type = 'test' and not coalesce(f.touches_tests, false)
                     and f.ci_lines > 0 then 'ci'
                -- a weak verb gives way to what the change is for (`Move X to reduce peak memory`)
                when p.verb_type in ('feat', 'chore', 'refactor') and p.purpose_type is not null
                     and p.first_word not in ('refactor', 'refactors', 'refactored', 'refactoring', 'pin', 'pins',
                                              'bump', 'bumps', 'upgrade', 'upgrades', 'downgrade')
                     and not (p.verb_type = 'chore' and coalesce(len(f.dependency_paths), 0) > 0) then p.purpose_type
                else p.verb_type end,
            p.word_type,
            case when p.performance_word is not null then 'perf' end,
            p.description_type,
            -- no verb that names a type, but what the change is for
            case when coalesce(len(f.dependency_paths), 0) = 0 then p.purpose_type end,
            case
                when f.dependency_only and p.files_complete then 'chore'
                -- a component removed: files deleted, next to nothing added
                when f.deletes_files and p.additions * 10 <= p.deletions then 'chore'
                when f.new_module_path is not null then 'feat'
                -- code added and (next to) nothing taken away: a new capability
                when p.additions >= 4 * p.deletions and p.additions > 0 and f.code_lines > 0 then 'feat'
                -- code changed in place: more taken away than added a restructuring, else a repair
                when f.code_lines > 0 and p.deletions > p.additions then 'refactor'
                when f.code_lines > 0 then 'fix'
            end,
            'other'
        ) as change_type,
        case
            when p.label_type is not null then 'label'
            when p.is_revert_title then 'title_revert'
            when p.is_dependency_bump and not p.is_release_title then 'title_bump'
            when k.non_code_type is not null then 'paths'
            when p.is_revert_body then 'description'
            when p.typo_or_docstring_type is not null then 'title_word'
            when p.verb_over_type is not null then 'title_verb'
            when coalesce(p.title_type, p.emoji_type) in ('feat', 'refactor')
                 and p.first_verb_type = 'chore' and len(f.dependency_paths) > 0 then 'title_verb'
            when p.title_type is not null then 'title_type'
            when p.emoji_type = 'chore' and p.purpose_type is not null and coalesce(len(f.dependency_paths), 0) = 0 then 'title_verb'
            when p.emoji_type is not null then 'title_emoji'
            when p.tag_type is not null then 'title_tag'
            when p.is_release_title or p.is_toolchain_title then 'title_release'
            when p.bot_type is not null then 'bot'
            when p.description_fixes then 'description'
            when p.verb_type is not null or (p.names_one_update and len(f.dependency_paths) > 0) then 'title_verb'
            when p.word_type is not null or p.performance_word is not null then 'title_word'
            when p.description_type is not null then 'description'
            when p.purpose_type is not null and coalesce(len(f.dependency_paths), 0) = 0 then 'title_verb'
            when (f.dependency_only and p.files_complete) or (f.deletes_files and p.additions * 10 <= p.deletions)
                 or f.new_module_path is not null or f.code_lines > 0
                then 'paths_fallback'
            else 'none'
        end as change_type_signal,
        p.breaking_signal is not null as is_breaking,
        p.breaking_signal,
        -- a change without code is placed by its paths (docs, ci, examples), whatever its title
        -- a release PR is the release, whatever files it bumps
        coalesce(
            case when k.non_code_type in ('docs', 'ci') then pa.primary_path_area end,
            na.named_areas[1], case when p.is_release_title then 'release' end, p.title_file_area, p.title_area,
            pa.primary_path_area, 'misc'
        ) as primary_area,
        case
            when k.non_code_type in ('docs', 'ci') and len(pa.path_areas) > 0 then pa.path_areas
            when len(na.named_areas) > 0 then list_sort(list_distinct(na.named_areas))
            when p.is_release_title then ['release']
            when p.title_file_area is not null
                then list_sort(list_distinct(list_append(coalesce(pa.path_areas, []), p.title_file_area)))
            when len(pa.path_areas) > 0 then pa.path_areas
            else ['misc']
        end as areas,
        case
            when k.non_code_type in ('docs', 'ci') and pa.primary_path_area is not null then 'paths'
            when len(na.named_areas) > 0 then 'title'
            when p.is_release_title then 'release'
            when p.title_file_area is not null then 'title_file'
            when p.title_area is not null then 'title_words'
            when pa.primary_path_area is not null then 'paths'
            else 'none'
        end as area_signal,
        p.performance_word is not null
            or coalesce(p.label_type = 'perf' or p.title_type = 'perf' or p.tag_type = 'perf', false)
            or list_contains(list_transform(p.label_names, lambda l: v.type_of_alias[l]), 'perf')
            as is_performance,
        -- a cut file list (files_complete false) may leave its tests out: touched when one is
        -- listed, else unknown
        case
            when p.files_complete then coalesce(f.touches_tests, false)
            when f.touches_tests then true
        end as touches_tests,
        coalesce(f.code_lines, 0) as code_lines,
        f.new_module_path,
        coalesce(f.dependency_paths, []) as dependency_paths,
        p.dependency_title_word,
        cast(p.revert_number_text as bigint) as revert_number_hint,
        p.revert_commit,
        p.revert_quoted_title,
        p.is_revert_title or p.revert_number_text is not null or p.revert_commit is not null
            as is_revert,
        p.referenced_numbers
    from title_named p
    cross join vocabulary v
)

select * from classified
