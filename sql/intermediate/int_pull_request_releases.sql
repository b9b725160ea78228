{{ config(materialized='incremental') }}

-- Release pull requests: a title that names a version and otherwise only release words
-- (seeds/release_words.csv: release, version, bump, prepare, ...), chore or CI type words
-- (seeds/change_type_aliases.csv, not `deps`), tags (seeds/scope_tags.csv: `misc`; a language
-- beside the repository's name or `release`, not in `bump Go to v1.25`) and the repository's
-- name: `Release: v1.9`, `Release 0.20.0`, `chore(release): 2.1.0`, `🔖 Release
-- version 0.141.1`, `Python Polars 1.43.2`, `Bump version to 0.12.5`. A pre-release is not a
-- release: a version with a suffix such as `rc1`, `a2`, `.dev0`, `-beta.1` (`post` is a final
-- release) or a pre-release word (`pre_release` in the seed: rc, beta, dev, nightly, ...), so
-- `Bump dev version` and `bump version to 0.10.0.dev` are not. `Bump numpy to 2.1` names a
-- dependency, not a word of the seed, and is not either. `release_pre` keeps a pre-release
-- version bump or dev-version chore apart: a story groups it with the week's release. Only
-- those PRs have a row (fct_pull_requests: not a release when none).
with vocabulary_lists as (
    select
        (select list(distinct lower(word)) from {{ ref('release_words') }} where not pre_release)
            as release_words,
        (select list(distinct lower(word)) from {{ ref('release_words') }} where pre_release)
            as pre_release_words,
        -- `deps`, `dependencies`: a dependency's version, not the project's
        (select list(distinct lower(alias)) from {{ ref('change_type_aliases') }}
         where change_type in ('chore', 'ci') and not upper_case_only
           and lower(alias) not in (select lower(keyword) from {{ ref('keywords') }} where signal = 'dependency'))
            as chore_words,
        (select list(distinct lower(tag)) from {{ ref('scope_tags') }} where kind <> 'language') as tags,
        (select list(distinct lower(tag)) from {{ ref('scope_tags') }} where kind = 'language') as languages
),

vocabulary as (
    select
        *,
        list_distinct(list_concat(release_words, pre_release_words, chore_words, tags)) as allowed
    from vocabulary_lists
),

-- a release names a version (a digit); a dev-version chore a pre-release word (`Bump dev
-- version`): the other titles are not read further
prs as (
    select p.repo, p.week_start, p.number, p.title
    from {{ ref('stg_pull_requests') }} p
    cross join vocabulary v
    where (
        regexp_matches(p.title, '[0-9]')
        or list_bool_or(list_transform(v.pre_release_words, lambda w: contains(lower(p.title), w)))
    )
    {{ in_run_weeks(of='p', keyword='and') }}
),

-- the title's words in lower case: `#N` references and gitmoji codes dropped, emoji and
-- punctuation are separators, a version keeps its dots (`v1.9`, `0.55.x`, `1.0.0-rc.1`)
words as (
    select
        p.*,
        regexp_replace(lower(string_split(p.repo, '/')[2]), '[-_. ]', '', 'g') as repo_key,
        list_filter(
            list_transform(
                string_split_regex(
                    regexp_replace(lower(p.title), '\(?#\d+\)?|:[a-z0-9_+-]+:', ' ', 'g'),
                    '[^a-z0-9_.+-]+'
                ),
                lambda w: trim(w, '.-+_')
            ),
            lambda w: w <> ''
        ) as tokens
    from prs p
),

-- the words no vocabulary holds, and the versions; a title with more such words than a
-- repository's name and a language is no release, and is not read further
sorted_words as (
    select
        w.repo,
        w.week_start,
        w.number,
        w.repo_key,
        w.tokens,
        list_filter(w.tokens, lambda t: regexp_matches(t, '^v?\d+(\.(\d+|x))+([-.+]?[a-z]+[.-]?\d*)?$'))
            as versions,
        list_filter(w.tokens, lambda t:
            not list_contains(v.allowed, t)
            and not regexp_matches(t, '^v?\d+(\.(\d+|x))+([-.+]?[a-z]+[.-]?\d*)?$')) as unknown_words,
        list_has_any(w.tokens, v.pre_release_words) as has_pre_release_word
    from words w
    cross join vocabulary v
    where len(w.tokens) <= 12
),

parsed as (
    select
        w.repo,
        w.week_start,
        w.number,
        w.versions,
        w.has_pre_release_word,
        list_filter(w.unknown_words, lambda t:
            -- a language beside the repository's name or a release word (`Python Polars
            -- 1.43.2`, `Rust release 0.55.x`); alone it is a toolchain's (`bump Go to v1.25`)
            not (list_contains(v.languages, t) and (
                list_has_any(w.tokens, ['release', 'released'])
                or list_contains(list_transform(w.tokens, lambda x: regexp_replace(x, '[-_.]', '', 'g')), w.repo_key)))
            -- the repository's name, alone or with a language (`py-polars`)
            and regexp_replace(t, '[-_.]', '', 'g') <> w.repo_key
            and regexp_replace(regexp_replace(regexp_replace(t, '[-_.]', '', 'g'),
                '^(py|python|rust|rs|js|ts|go|node)', ''), '(py|python|rust|rs|js|ts|go)$', '') <> w.repo_key
        ) as other_words
    from sorted_words w
    cross join vocabulary v
    where len(w.unknown_words) <= 3 and (len(w.versions) > 0 or w.has_pre_release_word)
),

final as (
    select
        repo,
        week_start,
        number,
        len(other_words) = 0 and len(versions) > 0 and not has_pre_release_word
            -- a version with a suffix is a pre-release (`rc1`, `a2`, `dev0`, `-beta.1`), but
            -- not `post1`
            and list_bool_and(list_transform(versions, lambda t:
                regexp_full_match(t, 'v?\d+(\.(\d+|x))+') or regexp_matches(t, '[-.+]?post[.-]?\d*$')
            )) as is_release,
        len(other_words) = 0 as is_release_chore,
        array_to_string(versions, ', ') as versions_text
    from parsed
)

select
    repo,
    week_start,
    number,
    is_release,
    case when is_release then versions_text end as release_version,
    -- a pre-release bump or a dev-version chore (`Bump dev version`): not a release itself
    is_release_chore and not is_release as is_release_pre
from final
where is_release_chore
