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
-- version bump or dev-version chore apart: a story groups it with the week's release. A
-- release is also said by a tag or phrase whatever else the title says, when the PR's files
-- bump a version (tagged, below): a leading `[release]`/`release:` tag (`is_tag` in the seed)
-- with a final version, a leading tag that is a version (`[python 0.6.7] undo ...`), or `bump
-- version to X` (`Bump version to 0.7.0 and write changelog`). Only those PRs have a row
-- (fct_pull_requests: not a release when none).
with vocabulary_lists as (
    select
        (select list(distinct lower(word)) from {{ ref('release_words') }} where not pre_release)
            as release_words,
        (select list(distinct lower(word)) from {{ ref('release_words') }} where pre_release)
            as pre_release_words,
        (select list(distinct lower(word)) from {{ ref('release_words') }} where is_tag) as tag_words,
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

-- whether a PR's files bump a version: a package manifest, a version file (`VERSION`,
-- `_version.py`, `verl/version/version`) or a changelog changed
version_files as (
    select
        repo,
        week_start,
        number,
        bool_or(coalesce(dependency_kind = 'manifest', false) or is_changelog
            or regexp_matches(path, '(^|/)_*version(_info)?(\.[a-z]+)?$', 'i')) as bumps_version
    from {{ ref('int_pull_request_files') }}
    {{ in_run_weeks() }}
    group by repo, week_start, number
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

-- a release said by the title's tag or phrase, whatever else the title says, when its files
-- bump a version (or are unknown): a leading tag that is a release word (`[release] feat:
-- first release on pypi v0.1.1`, `release(cli): ... 2.0.0`) and a final version anywhere in
-- the title; a leading bracket tag that is a version, alone or after the repository's name, a
-- language or a release word (`[python 0.6.7] undo a regression`); `bump version to X`
-- (`Bump version to 0.7.0 and write changelog`, `... bump version for 0.8.0`), not in a
-- revert. The version must be final (no suffix but `post`) and the title hold no pre-release
-- word: the rest are the rules below.
tagged as (
    select
        w.repo,
        w.week_start,
        w.number,
        t.bracket_tags,
        t.conventional,
        list_filter(w.tokens, lambda x: regexp_matches(x, '^v?\d+(\.(\d+|x))+([-.+]?[a-z]+[.-]?\d*)?$'))
            as versions,
        list_has_any(w.tokens, v.pre_release_words) as has_pre_release_word,
        list_filter(t.bracket_tags, lambda g:
            regexp_full_match(g, '(([a-z][a-z0-9_-]*) +)?v?\d+(\.\d+)+')
            and (not contains(g, ' ')
                or list_contains(v.languages, regexp_extract(g, '^[a-z][a-z0-9_-]*'))
                or list_contains(v.release_words, regexp_extract(g, '^[a-z][a-z0-9_-]*'))
                or regexp_replace(regexp_extract(g, '^[a-z][a-z0-9_-]*'), '[-_.]', '', 'g') = w.repo_key)
        ) as version_tags,
        list_has_any(
            list_concat(t.bracket_tags, [t.conventional.type],
                list_transform(string_split(coalesce(t.conventional.scope, ''), ','), lambda x: trim(x))),
            v.tag_words) as has_release_tag,
        case when not starts_with(lower(ltrim(w.title)), 'revert') then nullif(regexp_extract(lower(w.title),
            '\b(bump|bumps|bumped|update|updates|set|sets|prepare)\s+(the\s+)?version\s+(to|for|as)\s+(v?\d+(\.\d+)+[-.+a-z0-9]*)',
            4), '') end as bumped_version
    from words w
    cross join vocabulary v
    cross join lateral (
        select
            list_transform(regexp_extract_all(regexp_extract(lower(w.title), '^\s*((\[[^\]]*\]\s*)+)', 1),
                '\[([^\]]*)\]', 1), lambda g: regexp_replace(trim(g), '\s+', ' ', 'g')) as bracket_tags,
            regexp_extract(lower(w.title), '^\s*(?:\[[^\]]*\]\s*)*([a-z]+)(?:\(([^)]*)\))?!?:',
                ['type', 'scope']) as conventional
    ) t
    -- files unknown: the title alone
    left join version_files f on f.repo = w.repo and f.week_start = w.week_start and f.number = w.number
    where coalesce(f.bumps_version, true)
        -- a leading tag, or a version's word
        and regexp_matches(w.title, '^\s*\[|(?i)releas|publish|version')
),

tag_released as (
    select
        repo,
        week_start,
        number,
        coalesce(
            regexp_extract(version_tags[1], 'v?\d+(\.\d+)+$'),
            bumped_version,
            case when has_release_tag then array_to_string(versions, ', ') end
        ) as version
    from tagged
    where not has_pre_release_word
        and (len(version_tags) > 0 or bumped_version is not null or (has_release_tag and len(versions) > 0))
),

-- final versions only (no suffix but none): a pre-release is the rules' below
tag_releases as (
    select * from tag_released
    where regexp_full_match(version, 'v?\d+(\.(\d+|x))+(, v?\d+(\.(\d+|x))+)*')
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
    coalesce(f.is_release, false) or t.number is not null as is_release,
    case when f.is_release then f.versions_text else t.version end as release_version,
    -- a pre-release bump or a dev-version chore (`Bump dev version`): not a release itself
    coalesce(f.is_release_chore and not f.is_release, false) and t.number is null as is_release_pre
from (select * from final where is_release_chore) f
full join tag_releases t using (repo, week_start, number)
