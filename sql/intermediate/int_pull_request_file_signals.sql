{{ config(materialized='ephemeral') }}

-- What each PR's changed files say of its change type and areas (tests, docs, CI,
-- dependencies; the lines of each area). A step of
-- int_pull_requests_classified, inlined where it is read.

-- read twice (file signals, area lines): scanning the table again costs less than the copy of
-- all its rows that DuckDB keeps for a CTE used twice
with files as not materialized (
    select * from {{ ref('int_pull_request_files') }}
    {{ in_run_weeks() }}
),

-- what the path alone says, once per distinct path (paths repeat across PRs and repositories)
paths as (
    select
        path,
        regexp_matches(path, '(^|/)(examples?|docs?[_-](src|sources?|examples?))/') as in_examples,
        regexp_matches(path, '\.(md|mdx|rst|txt|adoc|ipynb)$') as is_prose_file,
        regexp_matches(path, '(^|/)CODEOWNERS$|^\.github/(ISSUE_TEMPLATE/|PULL_REQUEST_TEMPLATE|FUNDING\.ya?ml$)')
            as is_housekeeping,
        regexp_matches(path, '\.(md|mdx|rst|txt|adoc|ipynb)$|(^|/)README[^/]*$', 'i') as is_prose,
        regexp_matches(path, '(^|/)__init__\.py$') as is_package_init
    from (select distinct path from files)
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
            and p.in_examples and not p.is_prose_file), 0) as example_lines,
        -- program source: not examples, dependency files or what the tests exercise
        bool_or(is_source and not is_example and not is_dependency and not is_fixture) as has_source,
        coalesce(sum(lines) filter (where is_ci), 0) as ci_lines,
        coalesce(sum(lines) filter (where is_test and not is_ci), 0) as test_lines,
        bool_and(is_dependency) as dependency_only,
        bool_or(dependency_kind in ('list', 'lock')) as lists_dependencies,
        bool_and(is_changelog) as changelog_only,
        -- repository housekeeping under .github/ that is no CI: code owners, issue and PR
        -- templates, funding
        bool_and(p.is_housekeeping) as housekeeping_only,
        -- documentation prose (not its images, data files or site templates)
        coalesce(sum(lines) filter (where is_doc and p.is_prose), 0) as prose_lines,
        bool_or(change_type = 'DELETED') as deletes_files,
        bool_or(not is_test) as has_non_test,
        sum(lines) as total_lines,
        coalesce(sum(lines) filter (where is_code), 0) as code_lines,
        min(path) filter (where change_type = 'ADDED' and is_source
            and not p.is_package_init) as new_module_path,
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
    join paths p using (path)
    cross join {{ ref('int_pull_request_class_settings') }} st
    group by repo, number
)

select * from file_signals
