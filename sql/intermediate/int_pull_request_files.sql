{{ config(materialized='incremental') }}

-- One row per file changed by a merged pull request, classified: test, docs, CI, dependency
-- manifest or code; its area (seeds/area_path_rules.csv and repositories.yml, else the
-- repository's own layout); whether it is under a configured core path (seeds/core_paths.csv
-- and repositories.yml); and the hardware word
-- (seeds/keywords.csv) its path names, if any.

-- read twice (the distinct paths, the changes): scanning the table again costs less than the
-- copy of all its rows that DuckDB keeps for a CTE used twice
with files as not materialized (
    select * from {{ ref('stg_pull_request_files') }}
    {% if is_incremental() %}
    where repo = {{ var('repo') }} and week_start between {{ var('start_week') }} and {{ var('end_week') }}
    {% endif %}
),

hardware_words as (
    select list(distinct keyword) as words
    from {{ ref('keywords') }}
    where signal = 'hardware'
),

-- Everything below depends only on the repository and the path, so each path is classified
-- once, not once per PR that changed it (a file is changed by many PRs: five times fewer
-- paths than changes at scale, six times fewer in verl's history).
paths as (
    select distinct repo, path from files
),

kinds as (
    select
        p.repo,
        p.path,
        regexp_matches(p.path, '(^|/)(tests?|testing|__tests__)/|(^|/)test_[^/]*$|_test\.[a-z]+$|\.(test|spec)\.[a-z]+$|(^|/)conftest\.py$') as is_test,
        regexp_matches(p.path, '(^|/)docs?/|\.(md|rst|txt|ipynb)$|(^|/)(README|CHANGELOG|LICENSE|CONTRIBUTING)[^/]*$')
            and not regexp_matches(p.path, '(^|/)requirements[^/]*\.txt$') as is_doc,
        regexp_matches(p.path, '^\.github/|^\.gitlab-ci|^\.ci/|(^|/)\.pre-commit|^\.circleci/|^\.buildkite/|(^|/)\.?codecov\.ya?ml$') as is_ci,
        -- dependency manifests, lock files and container builds
        regexp_matches(p.path, '(^|/)(requirements[^/]*\.(txt|in)|pyproject\.toml|setup\.(py|cfg)|Pipfile(\.lock)?|[^/]*\.lock|package(-lock)?\.json|pnpm-lock\.yaml|environment[^/]*\.ya?ml|go\.(mod|sum)|Cargo\.toml|Gemfile|pom\.xml|build\.gradle(\.kts)?|Dockerfile[^/]*|[^/]*\.[Dd]ockerfile)$') as is_dependency,
        -- generated files: named so (`_generated_*`, `*.generated.*`, `generated/`), lock files,
        -- test snapshots and compiled protocol buffers; never core paths or hotspots
        regexp_matches(lower(p.path), '(^|/)[^/]*generated[^/]*$|(^|/)generated/|(^|/)[^/]*\.lock$|(^|/)(package-lock\.json|npm-shrinkwrap\.json|pnpm-lock\.yaml|go\.sum)$|(^|/)__snapshots__/|\.(snap|ambr)$|_pb2(_grpc)?\.pyi?$|\.pb\.(go|cc|h)$|\.min\.(js|css)$') as is_generated,
        -- examples and shell scripts: run recipes, not code that unit tests cover
        regexp_matches(p.path, '(^|/)examples?/') as is_example,
        regexp_matches(p.path, '\.(sh|bash)\b[^/]*$') as is_script,
        string_split(lower(p.path), '/') as segments,
        regexp_split_to_array(lower(p.path), '[/._-]+') as words,
        string_split(p.repo, '/')[2] as repo_name
    from paths p
),

-- the longest matching prefix rule wins; a rule for the repository beats a `*` rule
ruled as (
    select
        k.repo, k.path,
        arg_max(r.area, length(r.path_prefix) * 2 + (r.repo <> '*')::integer) as rule_area
    from kinds k
    join (
        select repo, path_prefix, area from {{ ref('area_path_rules') }}
        union all
        select repo, path_prefix, area from {{ source('settings', 'area_rules') }}
    ) r
        on (r.repo = k.repo or r.repo = '*') and starts_with(k.path, r.path_prefix)
    group by k.repo, k.path
),

configured_core as (
    select k.repo, k.path, arg_max(c.path_prefix, length(c.path_prefix)) as core_prefix
    from kinds k
    join (
        select repo, path_prefix from {{ ref('core_paths') }}
        union all
        select repo, path_prefix from {{ source('settings', 'core_paths') }}
    ) c
        on (c.repo = k.repo or c.repo = '*') and starts_with(k.path, c.path_prefix)
    group by k.repo, k.path
),

classified as (
    select
        k.repo,
        k.path,
        k.is_test,
        k.is_doc and not k.is_test as is_doc,
        k.is_ci,
        k.is_dependency,
        k.is_generated,
        k.is_example and not (k.is_test or k.is_ci) as is_example,
        k.is_script and not (k.is_test or k.is_ci) as is_script,
        not (k.is_test or k.is_doc or k.is_ci) as is_code,
        coalesce(
            r.rule_area,
            case
                when len(k.segments) = 1 then 'root'
                -- the package directory when the top level is the project's own package,
                -- `src` or the tests folder (so tests/engine/... counts for `engine`)
                when k.segments[1] in ('src', 'lib', 'pkg', 'packages', 'test', 'tests',
                                       lower(k.repo_name), replace(lower(k.repo_name), '-', '_'))
                     and len(k.segments) > 2
                    then k.segments[2]
                else k.segments[1]
            end
        ) as area,
        c.core_prefix as configured_core_prefix,
        list_filter(k.words, lambda w: list_contains(h.words, w))[1] as hardware_word
    from kinds k
    cross join hardware_words h
    left join ruled r using (repo, path)
    left join configured_core c using (repo, path)
),

final as (
    select
        f.repo,
        f.week_start,
        f.number,
        f.path,
        f.additions,
        f.deletions,
        f.additions + f.deletions as lines,
        f.change_type,
        c.is_test,
        c.is_doc,
        c.is_ci,
        c.is_dependency,
        c.is_generated,
        c.is_example,
        c.is_script,
        c.is_code,
        c.area,
        c.configured_core_prefix,
        c.hardware_word
    from files f
    join classified c using (repo, path)
)

select * from final
