{{ config(materialized='incremental') }}

-- One row per file changed by a merged pull request, classified: test, docs, CI, dependency
-- manifest or code; its area (seeds/area_path_rules.csv and repositories.yml, else the
-- repository's own layout); whether it is under a configured core path (seeds/core_paths.csv
-- and repositories.yml); and the hardware word
-- (seeds/keywords.csv) its path names, if any.
with files as (
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

kinds as (
    select
        f.*,
        f.additions + f.deletions as lines,
        regexp_matches(f.path, '(^|/)(tests?|testing|__tests__)/|(^|/)test_[^/]*$|_test\.[a-z]+$|\.(test|spec)\.[a-z]+$|(^|/)conftest\.py$') as is_test,
        regexp_matches(f.path, '(^|/)docs?/|\.(md|rst|txt|ipynb)$|(^|/)(README|CHANGELOG|LICENSE|CONTRIBUTING)[^/]*$')
            and not regexp_matches(f.path, '(^|/)requirements[^/]*\.txt$') as is_doc,
        regexp_matches(f.path, '^\.github/|^\.gitlab-ci|^\.ci/|(^|/)\.pre-commit|^\.circleci/|^\.buildkite/|(^|/)\.?codecov\.ya?ml$') as is_ci,
        -- dependency manifests, lock files and container builds
        regexp_matches(f.path, '(^|/)(requirements[^/]*\.(txt|in)|pyproject\.toml|setup\.(py|cfg)|Pipfile(\.lock)?|[^/]*\.lock|package(-lock)?\.json|pnpm-lock\.yaml|environment[^/]*\.ya?ml|go\.(mod|sum)|Cargo\.toml|Gemfile|pom\.xml|build\.gradle(\.kts)?|Dockerfile[^/]*|[^/]*\.[Dd]ockerfile)$') as is_dependency,
        string_split(lower(f.path), '/') as segments,
        regexp_split_to_array(lower(f.path), '[/._-]+') as words,
        string_split(f.repo, '/')[2] as repo_name
    from files f
),

-- the longest matching prefix rule wins; a rule for the repository beats a `*` rule
ruled as (
    select
        k.repo, k.number, k.path,
        arg_max(r.area, length(r.path_prefix) * 2 + (r.repo <> '*')::integer) as rule_area
    from kinds k
    join (
        select repo, path_prefix, area from {{ ref('area_path_rules') }}
        union all
        select repo, path_prefix, area from {{ source('settings', 'area_rules') }}
    ) r
        on (r.repo = k.repo or r.repo = '*') and starts_with(k.path, r.path_prefix)
    group by k.repo, k.number, k.path
),

configured_core as (
    select k.repo, k.number, k.path, arg_max(c.path_prefix, length(c.path_prefix)) as core_prefix
    from kinds k
    join (
        select repo, path_prefix from {{ ref('core_paths') }}
        union all
        select repo, path_prefix from {{ source('settings', 'core_paths') }}
    ) c
        on (c.repo = k.repo or c.repo = '*') and starts_with(k.path, c.path_prefix)
    group by k.repo, k.number, k.path
),

final as (
    select
        k.repo,
        k.week_start,
        k.number,
        k.path,
        k.additions,
        k.deletions,
        k.lines,
        k.change_type,
        k.is_test,
        k.is_doc and not k.is_test as is_doc,
        k.is_ci,
        k.is_dependency,
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
    left join ruled r using (repo, number, path)
    left join configured_core c using (repo, number, path)
)

select * from final
