{{ config(materialized='incremental') }}

-- Change type, areas, breaking and performance markers, file signals and the PR numbers a
-- pull request names, for each merged pull request.
--
-- Change type, first signal that decides: a label (seeds/change_type_aliases.csv); a title
-- that starts with `Revert`; a dependency bump (a `(deps)` scope, `Bump X from A to B`,
-- `Update X to vN`, `... digest to <sha>`), whatever its files; for a change without code,
-- what its files are (repository housekeeping such as a changelog or CODEOWNERS is a chore;
-- CI, tests or documentation, a `[ci]` module counting as `ci:`; example scripts and
-- `docs_src/` count as documentation; documentation's images, data and templates without its
-- prose are what an explicit chore type says); a revert the description opens with; a
-- misspelling fixed in names (a rename) or in documentation, a small fix of a docstring; a
-- weak title type or gitmoji that its verb overrides (`feat: optimize ...`, `chore: add ...
-- tests`, `♻️ Update X` changing a manifest); the title's `type:` after its [modules] or a
-- conventional commit `type(scope)!:` or `type[scope]:`, or an upper-case prefix such as
-- `ENH:` or `MNT `; a chore gitmoji that gives way to what the title says the change is for
-- (`... to avoid X`, seeds/title_purposes.csv); a gitmoji or emoji prefix
-- (seeds/title_emoji.csv; another emoji names no type); a bracket tag such as [Bugfix]; a
-- release or version-bump title (seeds/release_words.csv), or a language and a version
-- (`Rust 1.75`); a bot author (seeds/bot_authors.csv); a description that says it fixes a
-- bug, over a weak title verb; the title's first word (seeds/title_verbs.csv; `Remove X` that
-- deletes X's files is a chore, one that adds four times what it deletes a fix, `Use X 3.0`
-- or `Update X` changing a manifest a bump, a title naming tests that changes CI and no test
-- a CI change, a weak verb giving way to what the change is for: `Move X to reduce peak
-- memory`), GitHub's `Update <file>` naming none; then any word of it that counts anywhere;
-- the description (a checked type box, `Fixes #N`, its first verb, after a bullet's `[tag]`);
-- what the title says the change is for; the paths again (dependency manifests only, files
-- deleted and next to nothing added a chore, a new source file or code added and at most a
-- quarter as much removed a feature, code changed in place a refactor when more was removed
-- than added, else a fix); else `other`. Title scopes that name a language, layer or
-- catch-all (seeds/scope_tags.csv) or the repository are tags, not areas. With no tag naming
-- an area, a code span of the title
-- whose two words or more name a changed file (`pip compile` names `pip_compile.rs`) places the
-- PR in what it names (title_file_area), else a word of the title naming one of the path
-- areas places it there (title_named).
with classified as (
    select
        p.repo,
        p.week_start,
        p.number,
        p.merged_at,
        p.title,
        p.files_known,
        p.files_complete,
        coalesce(
            p.label_type,
            case when p.is_revert_title then 'revert' end,
            case when p.is_dependency_bump and not p.is_release_title then 'chore' end,
            k.non_code_type,
            case when p.is_revert_body then 'revert' end,
            -- misspellings fixed in code are renames (in docstrings, documentation); a fix of
            -- a docstring is documentation
            p.typo_or_docstring_type,
            p.verb_over_type,
            -- `refactor: update X` (or its gitmoji) that changes a dependency manifest bumps X
            case when coalesce(p.title_type, p.emoji_type) in ('feat', 'refactor')
                      and p.first_verb_type = 'chore' and len(f.dependency_paths) > 0 then 'chore' end,
            p.title_type,
            -- a chore gitmoji (often a pun: 📦 for packing) gives way to what the title says the
            -- change is for, unless it changes a dependency manifest
            case when p.emoji_type = 'chore' and p.purpose_type is not null and coalesce(len(f.dependency_paths), 0) = 0
                then p.purpose_type end,
            p.emoji_type,
            p.tag_type,
            case when p.is_release_title or p.is_toolchain_title then 'chore' end,
            p.bot_type,
            case when p.description_fixes then 'fix' end,
            -- removing a component (its files deleted, next to nothing added) is a chore;
            -- removing code from files that stay, a refactor
            case
                -- `Update X` that changes a dependency manifest updates the dependency X
                when p.names_one_update and len(f.dependency_paths) > 0 then 'chore'
                when p.verb_type = 'refactor' and f.deletes_files and p.additions * 10 <= p.deletions
                      and p.first_word in ('remove', 'removes', 'drop', 'drops', 'delete', 'deletes')
                then 'chore'
                -- `Use arrow 3.0.0` that changes a dependency manifest: a dependency bump
                when p.verb_type = 'refactor' and len(f.dependency_paths) > 0
                     and regexp_matches(p.title, '(^|[\s=<>(v])\d+(\.\d+)+') then 'chore'
                -- "Remove X" that adds four times what it deletes removes X from what the program
                -- does (quotes from a specifier, a stale entry): a repair
                when p.verb_type in ('refactor', 'chore') and p.deletions > 0 and p.additions >= 4 * p.deletions
                     and p.first_word in ('remove', 'removes', 'drop', 'drops', 'strip', 'strips', 'delete', 'deletes')
                    then 'fix'
                -- a title that says tests, where no test file changed but CI did
                when p.verb_type = 'test' and p.word_type = 'test' and not coalesce(f.touches_tests, false)
                     and f.ci_lines > 0 then 'ci'
                -- a weak verb gives way to what the change is for (`Move X to reduce peak memory`)
                when p.verb_type in ('feat', 'chore', 'refactor') and p.purpose_type is not null
                     and p.first_word not in ('refactor', 'refactors', 'refactored', 'refactoring', 'pin', 'pins',
                                              'bump', 'bumps', 'upgrade', 'upgrades', 'downgrade')
                     and not (p.verb_type = 'chore' and coalesce(len(f.dependency_paths), 0) > 0) then p.purpose_type
                else p.verb_type end,
            p.word_type,
            case when p.performance_word is not null then 'perf' end,
            p.description_type,
            -- no verb that names a type, but what the change is for
            case when coalesce(len(f.dependency_paths), 0) = 0 then p.purpose_type end,
            case
                when f.dependency_only and p.files_complete then 'chore'
                -- a component removed: files deleted, next to nothing added
                when f.deletes_files and p.additions * 10 <= p.deletions then 'chore'
                when f.new_module_path is not null then 'feat'
                -- code added and (next to) nothing taken away: a new capability
                when p.additions >= 4 * p.deletions and p.additions > 0 and f.code_lines > 0 then 'feat'
                -- code changed in place: more taken away than added a restructuring, else a repair
                when f.code_lines > 0 and p.deletions > p.additions then 'refactor'
                when f.code_lines > 0 then 'fix'
            end,
            'other'
        ) as change_type,
        case
            when p.label_type is not null then 'label'
            when p.is_revert_title then 'title_revert'
            when p.is_dependency_bump and not p.is_release_title then 'title_bump'
            when k.non_code_type is not null then 'paths'
            when p.is_revert_body then 'description'
            when p.typo_or_docstring_type is not null then 'title_word'
            when p.verb_over_type is not null then 'title_verb'
            when coalesce(p.title_type, p.emoji_type) in ('feat', 'refactor')
                 and p.first_verb_type = 'chore' and len(f.dependency_paths) > 0 then 'title_verb'
            when p.title_type is not null then 'title_type'
            when p.emoji_type = 'chore' and p.purpose_type is not null and coalesce(len(f.dependency_paths), 0) = 0 then 'title_verb'
            when p.emoji_type is not null then 'title_emoji'
            when p.tag_type is not null then 'title_tag'
            when p.is_release_title or p.is_toolchain_title then 'title_release'
            when p.bot_type is not null then 'bot'
            when p.description_fixes then 'description'
            when p.verb_type is not null or (p.names_one_update and len(f.dependency_paths) > 0) then 'title_verb'
            when p.word_type is not null or p.performance_word is not null then 'title_word'
            when p.description_type is not null then 'description'
            when p.purpose_type is not null and coalesce(len(f.dependency_paths), 0) = 0 then 'title_verb'
            when (f.dependency_only and p.files_complete) or (f.deletes_files and p.additions * 10 <= p.deletions)
                 or f.new_module_path is not null or f.code_lines > 0
                then 'paths_fallback'
            else 'none'
        end as change_type_signal,
        p.breaking_signal is not null as is_breaking,
        p.breaking_signal,
        -- a change without code is placed by its paths (docs, ci, examples), whatever its title
        -- a release PR is the release, whatever files it bumps
        coalesce(
            case when k.non_code_type in ('docs', 'ci') then pa.primary_path_area end,
            na.named_areas[1], case when p.is_release_title then 'release' end, p.title_file_area, p.title_area,
            pa.primary_path_area, 'misc'
        ) as primary_area,
        case
            when k.non_code_type in ('docs', 'ci') and len(pa.path_areas) > 0 then pa.path_areas
            when len(na.named_areas) > 0 then list_sort(list_distinct(na.named_areas))
            when p.is_release_title then ['release']
            when p.title_file_area is not null
                then list_sort(list_distinct(list_append(coalesce(pa.path_areas, []), p.title_file_area)))
            when len(pa.path_areas) > 0 then pa.path_areas
            else ['misc']
        end as areas,
        case
            when k.non_code_type in ('docs', 'ci') and pa.primary_path_area is not null then 'paths'
            when len(na.named_areas) > 0 then 'title'
            when p.is_release_title then 'release'
            when p.title_file_area is not null then 'title_file'
            when p.title_area is not null then 'title_words'
            when pa.primary_path_area is not null then 'paths'
            else 'none'
        end as area_signal,
        p.performance_word is not null
            or coalesce(p.label_type = 'perf' or p.title_type = 'perf' or p.tag_type = 'perf', false)
            or list_contains(list_transform(p.label_names, lambda l: v.type_of_alias[l]), 'perf')
            as is_performance,
        -- a cut file list (files_complete false) may leave its tests out: touched when one is
        -- listed, else unknown
        case
            when p.files_complete then coalesce(f.touches_tests, false)
            when f.touches_tests then true
        end as touches_tests,
        coalesce(f.code_lines, 0) as code_lines,
        f.new_module_path,
        coalesce(f.dependency_paths, []) as dependency_paths,
        p.dependency_title_word,
        cast(p.revert_number_text as bigint) as revert_number_hint,
        p.revert_commit,
        p.revert_quoted_title,
        p.is_revert_title or p.revert_number_text is not null or p.revert_commit is not null
            as is_revert,
        p.referenced_numbers
    from {{ ref('int_pull_request_title_named') }} p
    cross join {{ ref('int_pull_request_class_vocabulary') }} v
)

select * from classified
