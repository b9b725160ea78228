{{ config(materialized='ephemeral') }}

-- The areas each PR's title names word for word, beside its placed areas. A step of
-- int_pull_requests_classified, inlined where it is read.
select
    p.* exclude (candidates),  -- noqa: AM04
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
    case when contains(p.title, '`') then list_filter(list_transform(
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
        lambda a: a is not null)[1] end as title_file_area
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
    from {{ ref('int_pull_request_placed') }} p
) p
