{{ config(materialized='ephemeral') }}

-- The modules each PR's title names (its scope, tags and words), as the repository's areas. A step of
-- int_pull_requests_classified, inlined where it is read.

with repo_area_aliases as (
    select repo, map(list(lower(alias)), list(coalesce(area, ''))) as area_of_alias
    from {{ ref('area_aliases') }}
    where repo <> '*'
    group by repo
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
            lambda x: case when x.area <> '' and not list_contains(v.scope_tags, x.area) then
                -- the repository's name, alone or with a language (`py-polars`)
                not {{ names_repository('x.key', 't.repo_key', 'v.language_tags') }} else false end
        ) as named_area_items,
        case when len(t.version_tokens) > 0 then
            coalesce(list_bool_and(list_transform(t.release_other_words, lambda w:
                list_contains(v.release_words, w)
                or {{ names_repository("regexp_replace(w, '[-_. ]', '', 'g')", 't.repo_key', 'v.language_tags') }})), true)
            and (len(t.release_other_words) > 0 or len(t.title_tokens) = len(t.version_tokens))
        else false end as is_release_title,
        -- a language and a version, nothing else: a toolchain bump (`Rust 1.75`); the tokens
        -- compared with the languages only then (a select list's `and` evaluates every operand)
        case when len(t.version_tokens) = 0 then false else
            len(t.version_tokens) > 0 and len(t.release_other_words) = 0
                and list_has_any(t.title_tokens, v.language_tags)
        end as is_toolchain_title
    from {{ ref('int_pull_request_typed') }} t
    cross join {{ ref('int_pull_request_class_vocabulary') }} v
    left join repo_area_aliases r using (repo)
)

select * from modules  -- noqa: AM04
