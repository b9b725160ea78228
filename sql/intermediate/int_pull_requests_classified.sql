{{ config(materialized='incremental') }}

-- Change type, areas, breaking and performance markers, file signals and the PR numbers a
-- pull request names, for each merged pull request.
--
-- Change type, first signal that decides: a label (seeds/change_type_aliases.csv); a title
-- that starts with `Revert`; the title's `type:` after its [modules] or a conventional commit
-- `type(scope)!:`; a bracket tag such as [Bugfix]; the changed paths (docs, tests or CI only);
-- the title's first word, then any word of it (seeds/title_verbs.csv); else `other`.
with prs as (
    select * from {{ ref('stg_pull_requests') }}
    {% if is_incremental() %}
    where repo = {{ var('repo') }} and week_start between {{ var('start_week') }} and {{ var('end_week') }}
    {% endif %}
),

-- read twice (file signals, area lines): scanning the table again costs less than the copy of
-- all its rows that DuckDB keeps for a CTE used twice
files as not materialized (
    select * from {{ ref('int_pull_request_files') }}
    {% if is_incremental() %}
    where repo = {{ var('repo') }} and week_start between {{ var('start_week') }} and {{ var('end_week') }}
    {% endif %}
),

settings as (
    select max(value) filter (where name = 'path_area_min_share') as path_area_min_share
    from {{ ref('thresholds') }}
),

-- the seeds as lists and maps, so the rules below look words up in one step
vocabulary as (
    select
        (select map(list(lower(alias)), list(change_type)) from {{ ref('change_type_aliases') }}) as type_of_alias,
        (select list(lower(alias)) filter (where not is_area) from {{ ref('change_type_aliases') }}) as type_only_words,
        (select map(list(lower(verb)), list(change_type)) from {{ ref('title_verbs') }}) as type_of_verb,
        (select list(distinct lower(keyword)) from {{ ref('keywords') }} where signal = 'performance') as performance_words,
        (select list(distinct lower(keyword)) from {{ ref('keywords') }} where signal = 'dependency') as dependency_words,
        (select map(list(lower(alias)), list(coalesce(area, ''))) from {{ ref('area_aliases') }} where repo = '*') as area_of_alias
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
        bool_and(is_doc) as docs_only,
        bool_and(is_test) as tests_only,
        bool_and(is_ci) as ci_only,
        bool_or(not is_test) as has_non_test,
        coalesce(sum(lines) filter (where is_code), 0) as code_lines,
        min(path) filter (where change_type = 'ADDED' and is_code
            and regexp_matches(path, '\.(py|pyx|go|rs|ts|tsx|js|jsx|java|kt|scala|c|cc|cpp|h|hpp|cu|cuh|rb|swift|cs|php|lua|jl)$')
            and not regexp_matches(path, '(^|/)__init__\.py$')) as new_module_path,
        list(path order by path) filter (where is_dependency) as dependency_paths
    from files
    group by repo, number
),

area_lines as (
    select f.repo, f.number, f.area, sum(f.lines) as lines
    from files f
    join file_signals s using (repo, number)
    where not f.is_test or not s.has_non_test
    group by f.repo, f.number, f.area
),

path_areas as (
    select
        a.repo,
        a.number,
        first(a.area order by a.lines desc, a.area) as primary_path_area,
        list(a.area order by a.area) filter (
            where a.lines >= st.path_area_min_share * t.total_lines
        ) as path_areas
    from area_lines a
    join (select repo, number, sum(lines) as total_lines from area_lines group by repo, number) t
        using (repo, number)
    cross join settings st
    group by a.repo, a.number
),

title_parts as (
    select
        *,
        regexp_extract(title, '^\s*((\[[^\]]*\]\s*)+)', 1) as bracket_prefix,
        list_transform(coalesce(labels, []), lambda l: lower(trim(l))) as label_names
    from prs
),

title_tokens as (
    select
        *,
        list_filter(
            list_transform(
                flatten(list_transform(
                    regexp_extract_all(bracket_prefix, '\[([^\]]*)\]', 1),
                    lambda t: string_split(t, ',')
                )),
                lambda t: regexp_replace(lower(trim(t)), '\s+', ' ', 'g')
            ),
            lambda t: t <> '' and not regexp_matches(t, '^[\d\s/.]+$|^\d+\s*/\s*\w+$')
        ) as tokens,
        regexp_replace(trim(substr(title, length(bracket_prefix) + 1)), '^[:：\-\s]+', '') as rest
    from title_parts
),

-- the conventional-commit prefix `type(scope)!:`, matched once for all of its parts
title_prefixes as (
    select
        *,
        regexp_extract(
            rest,
            '^(([A-Za-z][A-Za-z_/-]*(?: [A-Za-z][A-Za-z_-]*)?)\s*(?:\(([^)]*)\))?\s*(!)?\s*[:：])',
            ['prefix', 'type', 'scope', 'bang']
        ) as typed_prefix
    from title_tokens
),

title_fields as (
    select
        * exclude (typed_prefix),
        lower(typed_prefix.type) as prefix_word,
        lower(typed_prefix.scope) as typed_scope,
        typed_prefix.bang = '!' as typed_bang,
        trim(substr(rest, length(typed_prefix.prefix) + 1)) as description,
        regexp_split_to_array(lower(title), '[^a-z0-9]+') as title_words
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
        v.type_of_alias[t.prefix_word] as title_type,
        list_filter(
            list_transform(t.tokens, lambda x: v.type_of_alias[x]), lambda x: x is not null
        )[1] as tag_type,
        coalesce(
            v.type_of_verb[lower(regexp_extract(t.description, '^\W*([A-Za-z]+)', 1))],
            v.type_of_alias[lower(regexp_extract(t.description, '^\W*([A-Za-z]+)', 1))]
        ) as verb_type,
        list_filter(
            list_transform(t.title_words, lambda w: v.type_of_verb[w]), lambda x: x is not null
        )[1] as word_type,
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
        -- leading `module:` that is not a type word
        list_concat(
            list_filter(t.tokens, lambda x:
                v.type_of_alias[t.prefix_word] is not null
                or not list_contains(v.type_only_words, x)),
            list_transform(string_split(coalesce(t.typed_scope, ''), ','), lambda s: lower(trim(s))),
            case
                when t.prefix_word is not null and t.prefix_word <> 'breaking'
                     and v.type_of_alias[t.prefix_word] is null and not contains(t.prefix_word, ' ')
                    then [t.prefix_word]
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
        -- in title order: the first named module is the primary area
        list_filter(
            list_transform(list_concat(t.raw_modules, t.label_areas), lambda x:
                coalesce(r.area_of_alias[x], v.area_of_alias[x], replace(x, ' ', '_'))),
            lambda x: x <> ''
        ) as named_areas
    from typed t
    cross join vocabulary v
    left join repo_area_aliases r using (repo)
),

classified as (
    select
        p.repo,
        p.week_start,
        p.number,
        p.merged_at,
        p.title,
        p.files_known,
        coalesce(
            p.label_type,
            case when p.is_revert_title then 'revert' end,
            p.title_type,
            p.tag_type,
            case
                when f.docs_only then 'docs'
                when f.tests_only then 'test'
                when f.ci_only then 'ci'
            end,
            p.verb_type,
            p.word_type,
            case when p.performance_word is not null then 'perf' end,
            'other'
        ) as change_type,
        case
            when p.label_type is not null then 'label'
            when p.is_revert_title then 'title_revert'
            when p.title_type is not null then 'title_type'
            when p.tag_type is not null then 'title_tag'
            when f.docs_only or f.tests_only or f.ci_only then 'paths'
            when p.verb_type is not null then 'title_verb'
            when p.word_type is not null or p.performance_word is not null then 'title_word'
            else 'none'
        end as change_type_signal,
        p.breaking_signal is not null as is_breaking,
        p.breaking_signal,
        coalesce(p.named_areas[1], pa.primary_path_area, 'misc') as primary_area,
        case
            when len(p.named_areas) > 0 then list_sort(list_distinct(p.named_areas))
            when len(pa.path_areas) > 0 then pa.path_areas
            else ['misc']
        end as areas,
        case
            when len(p.named_areas) > 0 then 'title'
            when pa.primary_path_area is not null then 'paths'
            else 'none'
        end as area_signal,
        p.performance_word is not null
            or coalesce(p.label_type = 'perf' or p.title_type = 'perf' or p.tag_type = 'perf', false)
            or list_contains(list_transform(p.label_names, lambda l: v.type_of_alias[l]), 'perf')
            as is_performance,
        case when p.files_known then coalesce(f.touches_tests, false) end as touches_tests,
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
    from modules p
    cross join vocabulary v
    left join file_signals f using (repo, number)
    left join path_areas pa using (repo, number)
)

select * from classified
