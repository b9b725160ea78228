{{ config(materialized='ephemeral') }}

-- The areas each PR's paths place it in, by the lines of each area. A step of
-- int_pull_requests_classified, inlined where it is read.

-- read twice (file signals, area lines): scanning the table again costs less than the copy of
-- all its rows that DuckDB keeps for a CTE used twice
with files as not materialized (
    select * from {{ ref('int_pull_request_files') }}
    {{ in_run_weeks() }}
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
    join {{ ref('int_pull_request_file_signals') }} s using (repo, number)
    cross join {{ ref('int_pull_request_class_settings') }} st
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
    cross join {{ ref('int_pull_request_class_settings') }} st
    group by a.repo, a.number
)

select * from path_areas
