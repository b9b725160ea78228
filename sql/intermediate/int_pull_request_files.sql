{{ config(materialized='incremental') }}

-- One row per file changed by a merged pull request, classified: test, docs, CI, dependency
-- manifest or code; its area; whether it is under a configured core path (seeds/core_paths.csv
-- and repositories.yml); and the hardware word (seeds/keywords.csv) its path names, if any.
--
-- The area is a path rule's (repositories.yml, then seeds/area_path_rules.csv: the longest
-- prefix wins, a repository's rule beating a `*` rule); else the first folder, from the top,
-- that is not a container. A container holds components rather than being one: a folder of
-- seeds/container_folders.csv (src/, crates/, packages/, tests/, playground/, utils/, ...;
-- compared without `-_. `: `_utils/`, `__tests__/`), a language (seeds/scope_tags.csv), a
-- folder named after the repository, alone or with a language (`polars/`, `py-polars/`,
-- `polars-python/`), or a folder that holds at least `container_min_share` of the repository's
-- code changes over the extracted history and two subfolders or more. Past the last container
-- (or at the top), a file is its own area: a dependency list or lock file is `dependencies`,
-- a package manifest `packaging`, a container build `docker`, a test `tests`, a changelog
-- `changelog`, a source file its name (`verl/protocol.py` is `protocol`, a top-level
-- `admin.go` `admin`), a hidden file its name without the dot (`.flake8` is `flake8`), and
-- anything else `root`.
--
-- `is_fixture`: under a folder of kind `fixtures` (playground/, fixtures/, testdata/): code and
-- data the tests exercise, which place a PR only when no source code changed. `is_helper`: its
-- area is named below a folder of kind `catch_all` (utils/, misc/): a helper, whose lines weigh
-- `helper_area_weight` in placing a PR.
--
-- Its steps, inlined (ephemeral): int_pull_request_file_words, int_pull_request_file_containers.

-- read twice (the distinct paths, the changes): a scan costs less than a CTE's copy of its rows
with files as not materialized (
    select * from {{ ref('stg_pull_request_files') }}
    {{ in_run_weeks() }}
),

-- the words paths are classified with, and the folders that are containers by the data
layout_words as (
    select * from {{ ref('int_pull_request_file_words') }}
),

-- Everything below depends only on the repository and the path, most of it on the path alone:
-- each is classified once, not once per PR that changed it (six times fewer paths than changes
-- in verl's history) nor per repository sharing it (README.md, .github/workflows/ci.yml).
paths as (
    select distinct repo, path from files
),

path_kinds as (
    select
        p.path,
        regexp_matches(p.path, '(^|/)(tests?|testing|__tests__)/|(^|/)test_[^/]*$|_test\.[a-z]+$|\.(test|spec)\.[a-z]+$|(^|/)conftest\.py$') as is_test,
        -- documentation: its folder and its code samples (`docs_src/`), text files, and the
        -- files that say who owns what (CODEOWNERS)
        regexp_matches(p.path, '(^|/)(docs?|docs?[_-](src|sources?|examples?))/|\.(md|rst|txt|ipynb)$|(^|/)(README|CHANGELOG|LICENSE|CONTRIBUTING|CODEOWNERS|OWNERS)[^/]*$')
            and not regexp_matches(p.path, '(^|/)(requirements|constraints)[^/]*\.txt$') as is_doc,
        regexp_matches(p.path, '^\.github/|^\.gitlab-ci|^\.ci/|(^|/)\.pre-commit|^\.circleci/|^\.buildkite/|(^|/)\.?codecov\.ya?ml$') as is_ci,
        -- generated files: named so (`_generated_*`, `*.generated.*`, `generated/`), lock files,
        -- test snapshots and compiled protocol buffers; never core paths or hotspots
        regexp_matches(lower(p.path), '(^|/)[^/]*generated[^/]*$|(^|/)generated/|(^|/)[^/]*\.lock$|(^|/)(package-lock\.json|npm-shrinkwrap\.json|pnpm-lock\.yaml|go\.sum)$|(^|/)__snapshots__/|\.(snap|ambr)$|_pb2(_grpc)?\.pyi?$|\.pb\.(go|cc|h)$|\.min\.(js|css)$') as is_generated,
        -- what a dependency file declares: `list` a list of dependencies and nothing else
        -- (requirements, constraints, conda environments, Pipfile, go.mod), `lock` the resolved
        -- versions, `manifest` a package's metadata that may list them (pyproject.toml,
        -- Cargo.toml, package.json, ...), `container` a container build
        case
            when not regexp_matches(p.path, '(^|/)(requirements[^/]*\.(txt|in)|constraints[^/]*\.txt|pyproject\.toml|setup\.(py|cfg)|Pipfile(\.lock)?|[^/]*\.lock|package(-lock)?\.json|pnpm-lock\.yaml|npm-shrinkwrap\.json|environment[^/]*\.ya?ml|go\.(mod|sum)|Cargo\.toml|Gemfile|pom\.xml|build\.gradle(\.kts)?|Dockerfile[^/]*|[^/]*\.[Dd]ockerfile)$')
                then null
            when regexp_matches(p.path, '(^|/)(Dockerfile[^/]*|[^/]*\.[Dd]ockerfile)$') then 'container'
            when regexp_matches(p.path, '(^|/)([^/]*\.lock|Pipfile\.lock|package-lock\.json|npm-shrinkwrap\.json|pnpm-lock\.yaml|go\.sum)$') then 'lock'
            when regexp_matches(p.path, '(^|/)(requirements[^/]*\.(txt|in)|constraints[^/]*\.txt|environment[^/]*\.ya?ml|Pipfile|go\.mod)$') then 'list'
            else 'manifest'
        end as dependency_kind,
        -- dependency manifests, lock files and container builds
        dependency_kind is not null as is_dependency,
        -- data and vendored files: results, fixtures, images, fonts and third-party copies,
        -- which say nothing about how much was written
        regexp_matches(lower(p.path), '\.(jsonl?|ndjson|csv|tsv|parquet|arrow|feather|avro|orc|npy|npz|pkl|pickle|h5|hdf5|pt|pth|safetensors|onnx|bin|dat|svg|png|jpe?g|gif|webp|ico|bmp|pdf|ttf|otf|woff2?|eot|wasm|gz|zip|tar)$') as is_data,
        regexp_matches(lower(p.path), '(^|/)(vendor|vendored|_vendor|third_party|third-party|thirdparty|node_modules)/') as is_vendored,
        -- examples and shell scripts: run recipes, not code that unit tests cover
        regexp_matches(p.path, '(^|/)examples?/') as is_example,
        regexp_matches(p.path, '\.(sh|bash)\b[^/]*$') as is_script,
        regexp_matches(p.path, '(^|/)(changelog|changes|history|news)[^/]*$', 'i') as is_changelog,
        regexp_matches(p.path, '\.(py|pyx|go|rs|ts|tsx|js|jsx|java|kt|scala|c|cc|cpp|h|hpp|cu|cuh|rb|swift|cs|php|lua|jl)$')
            as is_source_file,
        string_split(lower(p.path), '/') as segments,
        -- each folder and the name without `-_. `, the form names are compared in (plain
        -- replaces: a regular expression costs five times as much)
        list_transform(segments, lambda x: replace(replace(replace(replace(x, '-', ''), '_', ''), '.', ''), ' ', ''))
            as keys,
        -- the words between `/._-`
        list_filter(string_split(replace(replace(replace(lower(p.path), '.', '/'), '_', '/'), '-', '/'), '/'),
            lambda x: x <> '') as words
    from (select distinct path from paths) p
),

path_names as (
    select
        k.*,
        list_has_any(k.keys[1:-2], lw.fixture_folders) as is_fixture,
        list_filter(k.words, lambda w: list_contains(lw.hardware_words, w))[1] as hardware_word,
        -- what a title's module can name: the folders and the file's name without its
        -- extension as written (lower case) and their words between slashes, then each without
        -- `-_. ` between colons (`/trainer/async_grpo/loop/trainer/async/grpo/loop/:trainer:asyncgrpo:loop:`)
        '/' || array_to_string(k.segments[1:-2] || [regexp_replace(k.segments[-1], '\.[^.]*$', '')], '/')
            || '/' || array_to_string(k.words, '/') || '/:' || array_to_string(k.keys[1:-2]
                || [replace(replace(replace(replace(regexp_replace(k.segments[-1], '\.[^.]*$', ''),
                    '-', ''), '_', ''), '.', ''), ' ', '')], ':') || ':' as path_key
    from path_kinds k
    cross join layout_words lw
),

kinds as (
    select p.repo, k.*, string_split(p.repo, '/')[2] as repo_name
    from paths p
    join path_names k using (path)
),

-- for each folder of the path, from the top, whether it is a container
layouts as (
    select
        k.* replace (replace(replace(replace(replace(lower(k.repo_name), '-', ''), '_', ''), '.', ''), ' ', '')
            as repo_name),
        list_transform(range(1, len(k.segments)), lambda i:
            list_contains(w.containers, k.keys[i])
            or list_contains(w.languages, k.keys[i])
            or k.keys[i] = k.repo_name
            or (starts_with(k.keys[i], k.repo_name)
                and list_contains(w.languages, substr(k.keys[i], length(k.repo_name) + 1)))
            or (ends_with(k.keys[i], k.repo_name)
                and list_contains(w.languages, left(k.keys[i], length(k.keys[i]) - length(k.repo_name))))
            or list_contains(coalesce(d.folders, []), array_to_string(k.segments[1:i], '/'))
        ) as is_container
    from kinds k
    cross join layout_words w
    left join {{ ref('int_pull_request_file_containers') }} d using (repo)
),

-- the longest matching prefix rule wins; a rule for the repository beats a `*` rule, one of
-- the settings a seed's for the same prefix, then the area's name (a total order)
ruled as (
    select
        k.repo, k.path,
        arg_max(r.area, {'rank': length(r.path_prefix) * 2 + (r.repo <> '*')::integer,
            'setting': r.setting, 'area': r.area}) as rule_area
    from kinds k
    join (
        select repo, path_prefix, area, false as setting from {{ ref('area_path_rules') }}
        union all
        select repo, path_prefix, area, true as setting from {{ source('settings', 'area_rules') }}
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
        k.dependency_kind,
        k.is_data,
        k.is_vendored,
        k.is_example and not (k.is_test or k.is_ci) as is_example,
        k.is_script and not (k.is_test or k.is_ci) as is_script,
        k.is_changelog,
        not (k.is_test or k.is_doc or k.is_ci) as is_code,  -- noqa: LT01
        -- program source, by its extension (not a test, doc or CI file)
        not (k.is_test or k.is_doc or k.is_ci) and k.is_source_file as is_source,
        coalesce(
            r.rule_area,
            case
                -- a hidden folder is named without its dot (`.agent/` is `agent`)
                when list_position(k.is_container, false) is not null
                    then ltrim(k.segments[list_position(k.is_container, false)], '.')
                when k.dependency_kind in ('list', 'lock') then 'dependencies'
                when k.dependency_kind = 'container' then 'docker'
                when k.is_dependency then 'packaging'
                when k.is_test then 'tests'
                when k.is_source_file
                     and not regexp_matches(k.segments[-1], '^(__init__|__main__|lib|main|mod|index|init)\.')
                    then ltrim(regexp_replace(k.segments[-1], '(\.d)?\.[^.]+$', ''), '.')
                when k.is_changelog then 'changelog'
                -- a tool's hidden configuration is named after it (`.flake8`, `.eslintrc.json`)
                when regexp_matches(k.segments[-1], '^\.[a-z]')
                    then regexp_replace(ltrim(k.segments[-1], '.'), '\.[^.]*$', '')
                else 'root'
            end
        ) as area,
        -- the area is named below a catch-all folder (`utils/dataset/`, `utils/flops.py`): a helper
        r.rule_area is null and list_has_any(
            k.keys[1:coalesce(list_position(k.is_container, false), len(k.segments)) - 1], lw.catch_all_folders)
            as is_helper,
        k.is_fixture,
        c.core_prefix as configured_core_prefix,
        k.hardware_word,
        k.path_key
    from layouts k
    cross join layout_words lw
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
        c.dependency_kind,
        c.is_data,
        c.is_vendored,
        c.is_example,
        c.is_script,
        c.is_code,
        c.is_source,
        c.is_changelog,
        c.area,
        c.is_helper,
        c.is_fixture,
        c.configured_core_prefix,
        c.hardware_word,
        c.path_key
    from files f
    join classified c using (repo, path)
)

select * from final
