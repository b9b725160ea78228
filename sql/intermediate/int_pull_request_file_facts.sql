{{ config(materialized='ephemeral') }}

-- What the changed files of each PR with files say for its risk flags: tests, docs, size,
-- hardware, dependencies. A step of int_pull_request_flags, inlined where it is read.
with files as (
    select * from {{ ref('int_pull_request_files') }}
    {{ in_run_weeks() }}
),

-- What the changed files say: code that tests would cover (not generated, not examples), docs
-- and examples only; the lines of the files that say something about the change's size (not
-- documentation, generated, data or vendored files) and how many of them were added; the
-- lines of the files for specific hardware (code, build or CI whose path names it, not tests,
-- run scripts, docs or examples) against all such lines; and the dependency files by kind
file_facts as (
    select
        repo,
        week_start,
        number,
        coalesce(sum(lines) filter (where is_code and not is_generated and not is_example and not is_script), 0)
            as tested_code_lines,
        bool_and(is_doc or is_example) as docs_or_examples_only,
        coalesce(sum(lines) filter (where not (is_doc or is_generated or is_data or is_vendored)), 0)
            as sized_lines,
        coalesce(sum(additions) filter (where not (is_doc or is_generated or is_data or is_vendored)), 0)
            as sized_additions,
        count(*) filter (where additions > 0 and not (is_doc or is_generated or is_data or is_vendored))
            as sized_files,
        coalesce(sum(lines) filter (where not (is_doc or is_example or is_test or is_script)), 0) as platform_lines,
        coalesce(sum(lines) filter (where hardware_word is not null and not (is_doc or is_example or is_test or is_script)), 0)
            as hardware_lines,
        -- the largest file for the hardware, its path and word from the same row; of files
        -- with as many lines, the first path (a total order: a tie broken by whichever row came
        -- first gave another path from one build to the next)
        arg_min({'path': path, 'word': hardware_word}, {'lines': -lines, 'path': path})
            filter (where hardware_word is not null and not (is_doc or is_example or is_test or is_script))
            as hardware_file,
        -- a dependency list always says the dependencies changed; a lock file when it changed
        -- by at least a package's entry (unless only fixtures' manifests changed beside it, see
        -- below); a manifest or container build, and the documentation's
        -- own dependencies (under docs/, or `requirements-docs.txt`), only with the title
        -- (sorted after, not in an ordered aggregate, which sorts every group's rows)
        list_sort(list(path) filter (where (dependency_kind = 'list'
                or (dependency_kind = 'lock' and lines >= s.dependency_lock_min_lines))
            and not regexp_matches(path, '(^|/)docs?/|[-_.]docs?([-_.][^/]*)?$'))) as dependency_files,
        -- the manifests and lists changed are all of what the tests exercise (a playground's
        -- package, a test's requirements): the lock file follows them, not the project
        coalesce(bool_and(is_fixture or is_test or is_example)
            filter (where dependency_kind in ('list', 'manifest')), false) as fixture_manifests_only,
        list_sort(list(path) filter (where is_dependency)) as manifest_files,
        list_sort(list(path) filter (where dependency_kind = 'lock')) as lock_files
    from files
    cross join {{ ref('int_pull_request_flag_settings') }} s
    group by repo, week_start, number
)

select * from file_facts
