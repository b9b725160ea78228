{{ config(materialized='ephemeral') }}

-- The areas each PR is placed in: its paths, title modules and description. A step of
-- int_pull_requests_classified, inlined where it is read.
select
    p.*,  -- noqa: AM04
    f,
    pa,
    -- a change without code is what its files are, whatever the title says: the kind the
    -- title's type names if it changed any, else the kind with the most changed lines (CI,
    -- then tests, then documentation on a tie)
    -- misspellings fixed in code: in names a rename, in documentation or comments
    -- documentation, after `chore:` a rename; a small fix of a docstring (no test changed)
    -- documentation
    case
        when p.names_typo and f.has_code and coalesce(p.title_type, p.emoji_type, '') <> 'docs'
             and coalesce(len(f.dependency_paths), 0) = 0 and not contains(lower(p.title), ' and ') then
            case
                when p.names_identifiers then 'refactor'
                when p.names_docs then 'docs'
                when p.names_message then null  -- a message users read: what the title says
                when coalesce(p.title_type, p.emoji_type) in ('chore', 'refactor') then 'refactor'
            end
        when p.names_docstring and coalesce(p.title_type, p.emoji_type, p.first_verb_type) in ('fix', 'chore', 'refactor')
             and p.additions + p.deletions <= 20 and not coalesce(f.touches_tests, false) then 'docs'
    end as typo_or_docstring_type,
    struct_pack(non_code_type := case when not f.has_code and p.files_complete then
        case
            when f.changelog_only or f.housekeeping_only then 'chore'  -- repository housekeeping
            -- `ci:`, or a `[ci]` module in a `[modules] type:` title
            when (p.title_type = 'ci' or p.tag_type = 'ci') and f.ci_lines > 0 then 'ci'
            when p.title_type = 'test' and f.test_lines > 0 then 'test'
            when p.title_type = 'docs' and (f.ci_lines + f.test_lines < f.total_lines or p.names_code_docs)
                then 'docs'
            -- documentation's images, data files and templates without its prose (a banner,
            -- a sponsors list): what an explicit chore type or gitmoji says
            when coalesce(p.title_type, p.emoji_type) = 'chore' and f.example_lines = 0
                 and f.prose_lines * 2 < f.total_lines - f.ci_lines - f.test_lines
                then 'chore'
            when f.ci_lines > 0 and f.ci_lines >= greatest(f.test_lines, f.total_lines - f.ci_lines - f.test_lines) then 'ci'
            when f.test_lines > 0 and f.test_lines >= f.total_lines - f.ci_lines - f.test_lines then 'test'
            else 'docs'
        end
        end) as k,
    -- a title's tag is an area when it names a folder or module the files touch, or the area
    -- of one (`[ci]` for .github/), compared without case and `-_. ` and as the start of a
    -- folder's or name's word (`AsyncGRPO` names `async_grpo/`, `algo` `core_algos.py`), spelt
    -- as the path area it names; a series name (`[sparse refactor]`) is not. With a cut or
    -- unknown file list, kept.
    struct_pack(named_areas := list_transform(
        list_filter(p.named_area_items,
            -- (a case, not an `or`: a select list's `or` evaluates every operand, and the path
            -- areas' keys are spelt only for a tag that names no path)
            lambda x: case
                when x.trusted or not p.files_complete
                    or contains(f.path_keys, '/' || x.key) or contains(f.path_keys, ':' || x.key)
                    -- a plural naming a folder or name in the singular (`[workers]`, `worker/`)
                    or ends_with(x.key, 's') and length(x.key) > 3
                       and contains(f.path_keys, ':' || left(x.key, length(x.key) - 1) || ':') then true
                -- a path area's key (`asyncgrpo` for `async_grpo`)
                else list_contains(list_transform(pa.all_path_areas, lambda a:
                    replace(replace(replace(replace(a, '-', ''), '_', ''), '.', ''), ' ', '')), x.key)
            end),
        -- spelt as the path area it names (also in the singular or plural: `[model]` names
        -- `models/`, `[workers]` `worker/`; or after the repository's name: `netrc` names
        -- `uv-netrc`), else as the tag when it separates its words
        -- (`bundled-dev`, not `bundleddev`), else as the folder or module it names
        lambda x: coalesce(
            list_filter(list_sort(pa.all_path_areas), lambda a:
                replace(replace(replace(replace(a, '-', ''), '_', ''), '.', ''), ' ', '') = x.key)[1],
            list_filter(list_sort(pa.all_path_areas), lambda a:
                replace(replace(replace(replace(a, '-', ''), '_', ''), '.', ''), ' ', '')
                    in (x.key || 's', left(x.key, length(x.key) - 1)) and length(x.key) > 3)[1],
            -- or after the repository's name (`netrc` names `uv-netrc`)
            list_filter(list_sort(pa.all_path_areas), lambda a:
                replace(replace(replace(replace(a, '-', ''), '_', ''), '.', ''), ' ', '') = p.repo_key || x.key)[1],
            case when regexp_matches(x.area, '[-_]') then replace(x.area, '-', '_') end,
            case when not x.trusted and p.files_complete and not contains(f.path_keys, '/' || x.area || '/') then
                list_filter(string_split(f.path_keys, '/'), lambda s:
                    replace(replace(replace(replace(s, '-', ''), '_', ''), '.', ''), ' ', '') = x.key)[1]
            end,
            x.area)
    )) as na,
    -- the title's words that may name an area of its files: with no tag naming one and no
    -- dependency bump (its title names the dependency), words of three letters or more,
    -- code split at its capitals (`CacheEntry`: `cache`, `entry`; split once per title in
    -- int_pull_request_title_fields), not its verb, a type word, a scope tag or a container
    -- folder (`crates`)
    struct_pack(words := case when len(p.named_area_items) = 0 and len(pa.nameable_areas) > 1
            and not p.is_dependency_bump and not coalesce(f.dependency_only, false) then
        list_filter(list_distinct(p.area_words),
            -- (a case: the lists searched only for a word that passed the lookups)
            lambda w: case when length(w) >= 3 and w is distinct from p.first_word and v.type_of_word[w] is null
                and v.type_of_alias[w] is null then not list_contains(v.scope_tags, w)
                and not list_contains(v.container_words, w) else false end)
    end,
    -- and all of them in order, between colons (`:respect:string:cache:scope:`)
    sequence := case when len(p.named_area_items) = 0 and len(pa.nameable_areas) > 1 then
        ':' || array_to_string(p.area_words, ':') || ':'
    end) as tw
from {{ ref('int_pull_request_described') }} p
cross join {{ ref('int_pull_request_class_vocabulary') }} v
left join {{ ref('int_pull_request_file_signals') }} f using (repo, number)
left join {{ ref('int_pull_request_path_areas') }} pa using (repo, number)
