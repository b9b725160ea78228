{{ config(materialized='incremental') }}

-- The topics each merged pull request serves (seeds/topics.csv), one row per PR and topic, with
-- the evidence of the first rule that tagged it (seeds/topic_rules.csv), in this order:
--   type       the change type (not for a PR that changes documentation only);
--   title      a keyword of the title; `keywords` takes a signal's words from seeds/keywords.csv;
--              `signal` a change_type_signal (title_release); `version` a version number in
--              the title (`vllm 0.9`, `>=2.1`) that is not a release's;
--   text       a keyword of the description's prose (template headings, quotes, check lists,
--              comments and code left out);
--   area       one of the PR's areas;
--   path       a word of a changed path (`benchmarks`, `npu`, `parquet`);
--   files      every changed file is of that kind (docs, ci, dependency);
--   default    the change type, when no rule above tagged the PR.
-- Keywords match whole words, case-insensitively: `-`, `/` and `.` separate words, so
-- `speed up` also matches "speed-up"; a trailing `*` matches any word that starts so (`qwen*`).
with prs as (
    select repo, week_start, number, title, body from {{ ref('stg_pull_requests') }}
    {% if is_incremental() %}
    where {{ scoped('repo') }} and week_start between {{ var('start_week') }} and {{ var('end_week') }}
    {% endif %}
),

classified as (
    select repo, number, title, change_type, change_type_signal, areas, files_known
    from {{ ref('int_pull_requests_classified') }}
    {% if is_incremental() %}
    where {{ scoped('repo') }} and week_start between {{ var('start_week') }} and {{ var('end_week') }}
    {% endif %}
),

-- read twice (file kinds, path words): scanning the table again costs less than a copy
changed as not materialized (
    select repo, number, path, is_doc, is_ci, is_dependency
    from {{ ref('int_pull_request_files') }}
    {% if is_incremental() %}
    where {{ scoped('repo') }} and week_start between {{ var('start_week') }} and {{ var('end_week') }}
    {% endif %}
),

files as (
    select
        repo,
        number,
        bool_and(is_doc) as docs_only,
        bool_and(is_ci) as ci_only,
        bool_and(is_dependency) as dependency_only,
        count(*) as files
    from changed
    group by repo, number
),

-- the rules, keywords normalised as the text is: lower case, `-`, `/`, `.` as spaces
rules as (
    select
        r.topic,
        t.position,
        case when r.source = 'keywords' then 'title' else r.source end as source,
        trim(regexp_replace(lower(coalesce(k.keyword, r.match)), '[-/.\s]+', ' ', 'g')) as keyword
    from {{ ref('topic_rules') }} r
    join {{ ref('topics') }} t using (topic)
    left join {{ ref('keywords') }} k on r.source = 'keywords' and k.signal = r.match
),

vocabulary as (
    select
        list(distinct keyword) filter (where source = 'title' and not ends_with(keyword, '*')) as title_words,
        list(distinct rtrim(keyword, '*')) filter (where source = 'title' and ends_with(keyword, '*'))
            as title_prefixes,
        list(distinct keyword) filter (where source = 'text') as text_words,
        list(distinct keyword) filter (where source = 'area') as area_words,
        list(distinct keyword) filter (where source = 'path') as path_words
    from rules
),

-- a path word names a topic when it is in at least half of the PR's changed files; each
-- distinct path is split once, however many PRs changed it
path_hits as (
    -- the words of the folders and the file's name, not of its extension (`package.json`)
    select p.repo, p.path, list_intersect(
        list_distinct(regexp_split_to_array(regexp_replace(lower(p.path), '\.[^./]*$', ''), '[/._-]+')),
        v.path_words) as words
    from (select distinct repo, path from changed) p
    cross join vocabulary v
),

path_words as (
    select w.repo, w.number, list(w.word) as path_words
    from (
        select repo, number, word, count(*) as n
        from (
            select c.repo, c.number, unnest(h.words) as word
            from changed c
            join path_hits h using (repo, path)
            where len(h.words) > 0
        )
        group by repo, number, word
    ) w
    join files f using (repo, number)
    where w.n * 2 >= f.files
    group by w.repo, w.number
),

-- the description's prose: paragraphs that are not quotes, check lists, comments or code
-- (each regex runs only on the descriptions where a plain search finds its mark)
prose as (
    select
        repo,
        number,
        lower(title) as title_text,
        lower(left(array_to_string(list_filter(
            string_split_regex(
                case
                    when contains(body, '<!--') or contains(body, '```')
                        then regexp_replace(replace(body, chr(13), ''), '(?s)<!--.*?-->|```.*?```', ' ', 'g')
                    else replace(coalesce(body, ''), chr(13), '')
                end,
                '\n[ \t]*\n'
            ),
            lambda para: not (contains(para, '>') or contains(para, '['))
                or not regexp_matches(para, '^\s*(>|[-*+]\s*\[[ xX]\])')
        ), chr(10)), 4000)) as body_text
    from prs
),

-- words, and pairs (and in the title triples) of words, so that phrases match too
ngrams as (
    select
        repo,
        number,
        list_concat(
            w,
            list_transform(range(1, len(w)), lambda i: w[i] || ' ' || w[i + 1]),
            list_transform(range(1, len(w) - 1), lambda i: w[i] || ' ' || w[i + 1] || ' ' || w[i + 2])
        ) as title_grams,
        list_concat(b, list_transform(range(1, len(b)), lambda i: b[i] || ' ' || b[i + 1])) as text_grams
    from (
        select
            repo,
            number,
            list_filter(regexp_split_to_array(title_text, '[^a-z0-9_+]+'), lambda x: x <> '') as w,
            list_filter(regexp_split_to_array(
                regexp_replace(body_text, '(?m)^\s*#.*$', '', 'g'), '[^a-z0-9_+]+'), lambda x: x <> '') as b
        from prose
    )
),

-- what each PR matched, one lookup per list: the keyword then names its topics below
matched as (
    select
        c.repo,
        c.number,
        c.change_type,
        c.change_type_signal,
        nullif(regexp_extract(c.title, '(?:^|[\s=<>(])(v?\d+(?:\.\d+)+(?:[.-]?rc\d*)?)', 1), '') as version,
        coalesce(f.docs_only, false) as docs_only,
        coalesce(f.ci_only, false) as ci_only,
        coalesce(f.dependency_only, false) as dependency_only,
        list_intersect(g.title_grams, v.title_words) as title_hits,
        list_filter(g.title_grams, lambda x:
            len(list_filter(v.title_prefixes, lambda p: starts_with(x, p))) > 0) as title_prefix_hits,
        case when v.text_words is not null then list_intersect(g.text_grams, v.text_words) end as text_hits,
        list_intersect(c.areas, v.area_words) as area_hits,
        list_intersect(coalesce(pw.path_words, []), v.path_words) as path_hits
    from classified c
    join ngrams g using (repo, number)
    left join files f using (repo, number)
    left join path_words pw using (repo, number)
    cross join vocabulary v
),

hits as (
    select repo, number, topic, position, 1 as step, 'the change type is ' || change_type as evidence
    from matched m join rules r on r.source = 'type' and r.keyword = m.change_type and not m.docs_only
    union all
    select repo, number, topic, position, 2, 'the title says "' || h.hit || '"'
    from (select repo, number, unnest(title_hits) as hit from matched) h
    join rules r on r.source = 'title' and r.keyword = h.hit
    union all
    select repo, number, topic, position, 2, 'the title says "' || h.hit || '"'
    from (select repo, number, unnest(title_prefix_hits) as hit from matched) h
    join rules r on r.source = 'title' and ends_with(r.keyword, '*') and starts_with(h.hit, rtrim(r.keyword, '*'))
        -- as many words as the keyword: `qwen*` names "qwen3", not "qwen3 vl"
        and length(h.hit) - length(replace(h.hit, ' ', '')) = length(r.keyword) - length(replace(r.keyword, ' ', ''))
    union all
    select repo, number, topic, position, 2, 'the change type came from ' || m.change_type_signal
    from matched m join rules r on r.source = 'signal' and r.keyword = m.change_type_signal
    union all
    select repo, number, topic, position, 2, 'the title names version ' || m.version
    from matched m join rules r on r.source = 'version'
    where m.version is not null and m.change_type_signal <> 'title_release'
    union all
    select repo, number, topic, position, 3, 'the description says "' || h.hit || '"'
    from (select repo, number, unnest(text_hits) as hit from matched) h
    join rules r on r.source = 'text' and r.keyword = h.hit
    union all
    select repo, number, topic, position, 4, 'area ' || h.hit
    from (select repo, number, unnest(area_hits) as hit from matched) h
    join rules r on r.source = 'area' and r.keyword = h.hit
    union all
    select repo, number, topic, position, 5, 'changes a path with "' || h.hit || '"'
    from (select repo, number, unnest(path_hits) as hit from matched) h
    join rules r on r.source = 'path' and r.keyword = h.hit
    union all
    select repo, number, topic, position, 6, 'changes ' || r.keyword || ' files only'
    from matched m
    join rules r on r.source = 'files' and (
        (r.keyword = 'docs' and m.docs_only) or (r.keyword = 'ci' and m.ci_only)
        or (r.keyword = 'dependency' and m.dependency_only))
),

defaults as (
    select m.repo, m.number, r.topic, r.position, 7 as step,
        'the change type is ' || m.change_type || ' and nothing else named a topic' as evidence
    from matched m
    join rules r on r.source = 'default' and r.keyword = m.change_type
    anti join hits h using (repo, number)
),

final as (
    select
        p.repo,
        p.week_start,
        p.number,
        t.topic,
        min(t.position) as topic_position,
        -- the first step's evidence; within a step, the first in alphabetical order
        substr(min(t.step || ':' || t.evidence), 3) as evidence
    from (select * from hits union all select * from defaults) t
    join prs p using (repo, number)
    group by p.repo, p.week_start, p.number, t.topic
)

select * from final
