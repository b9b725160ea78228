{{ config(materialized='incremental') }}

-- Change type, areas and file signals for each merged pull request.
-- Change type signals, in order: labels, `Revert "..."`, the title's `type:` (after its
-- [modules]), bracket tags such as [Bugfix], what the changed paths are, then the first verb.
with prs as (
    select * from {{ ref('stg_pull_requests') }}
    {% if is_incremental() %}
    where repo = {{ var('repo') }} and week_start between {{ var('start_week') }} and {{ var('end_week') }}
    {% endif %}
),

files as (
    select * from {{ ref('stg_pull_request_files') }}
    {% if is_incremental() %}
    where repo = {{ var('repo') }} and week_start between {{ var('start_week') }} and {{ var('end_week') }}
    {% endif %}
),

vocabulary as (
    -- the seeds as lists and maps, so the title rules below can look words up in one step
    select
        (select map(list(lower(alias)), list(change_type)) from {{ ref('change_type_aliases') }}) as type_of_alias,
        (select list(lower(alias)) filter (where not is_area) from {{ ref('change_type_aliases') }}) as type_only_words,
        (select map(list(lower(verb)), list(change_type)) from {{ ref('title_verbs') }}) as type_of_verb
),

file_paths as (
    select
        *,
        regexp_matches(path, '(^|/)(tests?|testing|__tests__)/|(^|/)test_[^/]*$|_test\.[a-z]+$|\.(test|spec)\.[a-z]+$|(^|/)conftest\.py$') as is_test,
        regexp_matches(path, '(^|/)docs?/|\.(md|rst|txt)$|(^|/)(README|CHANGELOG|LICENSE)[^/]*$') as is_doc,
        regexp_matches(path, '^\.github/|^\.gitlab-ci|^\.ci/|(^|/)\.pre-commit|^\.circleci/|^\.buildkite/') as is_ci,
        -- the package directory when the top level is the project's own package or `src`
        case
            when not contains(path, '/') then null
            when split_part(path, '/', 1) in ('src', 'lib', 'pkg', 'test', 'tests', split_part(repo, '/', 2))
                 and length(string_split(path, '/')) > 2
                then split_part(path, '/', 2)
            else split_part(path, '/', 1)
        end as path_area
    from files
),

file_signals as (
    select
        repo,
        number,
        bool_or(is_test) as touches_tests,
        bool_and(is_doc) as docs_only,
        bool_and(is_test) as tests_only,
        bool_and(is_ci) as ci_only,
        coalesce(
            arg_max(path_area, additions + deletions) filter (where path_area is not null and not is_test),
            arg_max(path_area, additions + deletions) filter (where path_area is not null)
        ) as largest_path_area
    from file_paths
    group by repo, number
),

title_parts as (
    select
        *,
        regexp_extract(title, '^\s*((\[[^\]]*\]\s*)+)', 1) as bracket_prefix
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
                lambda t: lower(trim(t))
            ),
            lambda t: t <> '' and not regexp_matches(t, '^\d+\s*/\s*\w+$')
        ) as tokens,
        trim(substr(title, length(bracket_prefix) + 1)) as rest
    from title_parts
),

title_fields as (
    select
        *,
        lower(regexp_extract(rest, '^([A-Za-z]+)\s*(\(([^)]*)\))?\s*(!)?\s*:', 1)) as typed_word,
        lower(regexp_extract(rest, '^([A-Za-z]+)\s*(\(([^)]*)\))?\s*(!)?\s*:', 3)) as typed_scope,
        regexp_matches(rest, '^[A-Za-z]+\s*(\([^)]*\))?\s*!\s*:') as typed_bang,
        lower(regexp_extract(rest, '^\(?([A-Za-z]+)', 1)) as first_word,
        regexp_matches(title, '^\s*revert\b', 'i') as is_revert_title
    from title_tokens
),

typed as (
    select
        t.*,
        list_sort(list_filter(
            list_transform(coalesce(t.labels, []), lambda l: v.type_of_alias[lower(l)]),
            lambda x: x is not null
        ))[1] as label_type,
        v.type_of_alias[t.typed_word] as title_type,
        list_filter(
            list_transform(t.tokens, lambda x: v.type_of_alias[x]), lambda x: x is not null
        )[1] as tag_type,
        v.type_of_verb[t.first_word] as verb_type,
        list_contains(t.tokens, 'breaking') or t.typed_bang
            or list_contains(list_transform(coalesce(t.labels, []), lambda l: lower(l)), 'breaking')
            as is_breaking,
        -- modules: bracket tokens that are not pure type words (when the title also has a
        -- `type:`, every bracket token is a module), plus a conventional-commit scope
        list_filter(
            list_concat(
                list_filter(t.tokens, lambda x:
                    v.type_of_alias[t.typed_word] is not null
                    or not list_contains(v.type_only_words, x)),
                list_transform(string_split(coalesce(t.typed_scope, ''), ','), lambda s: trim(s))
            ),
            lambda x: x <> '' and x <> 'breaking'
        ) as title_areas
    from title_fields t
    cross join vocabulary v
),

classified as (
    select
        p.repo,
        p.week_start,
        p.number,
        p.is_breaking,
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
            'other'
        ) as change_type,
        case
            when p.label_type is not null then 'label'
            when p.is_revert_title then 'title_revert'
            when p.title_type is not null then 'title_type'
            when p.tag_type is not null then 'title_tag'
            when f.docs_only or f.tests_only or f.ci_only then 'paths'
            when p.verb_type is not null then 'title_verb'
            else 'none'
        end as change_type_signal,
        coalesce(
            p.title_areas[1],
            f.largest_path_area,
            'misc'
        ) as primary_area,
        list_sort(list_distinct(list_concat(
            p.title_areas,  -- in title order, so the first named module is the primary area
            case when len(p.title_areas) = 0 and f.largest_path_area is not null
                then [f.largest_path_area] else [] end,
            case when len(p.title_areas) = 0 and f.largest_path_area is null
                then ['misc'] else [] end
        ))) as areas,
        case when p.files_known then coalesce(f.touches_tests, false) end as touches_tests
    from typed p
    left join file_signals f using (repo, number)
)

select * from classified
