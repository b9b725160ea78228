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
    {{ in_run_weeks() }}
),

classified as (
    select repo, week_start, number, title, change_type, change_type_signal, areas, files_known
    from {{ ref('int_pull_requests_classified') }}
    {{ in_run_weeks() }}
),

-- read twice (file kinds, path words): scanning the table again costs less than a copy
changed as not materialized (
    select repo, week_start, number, path, is_doc, is_ci, is_dependency
    from {{ ref('int_pull_request_files') }}
    {{ in_run_weeks() }}
),

files as (
    select
        repo, week_start, number,
        bool_and(is_doc) as docs_only,
        bool_and(is_ci) as ci_only,
        bool_and(is_dependency) as dependency_only,
        count(*) as files
    from changed
    group by repo, week_start, number
),

-- the rules, keywords normalised as the text is: lower case, `-`, `/`, `.` as spaces
rules as (
    select * from {{ ref('int_pull_request_topic_rules') }}
),

-- a path word names a topic when it is in at least half of the PR's changed files; each
-- distinct path is split once, however many PRs and repositories changed it
path_hits as (
    -- the words of the folders and the file's name, not of its extension (`package.json`)
    select p.path, p.word
    from (
        select path, unnest(list_distinct(
            regexp_split_to_array(regexp_replace(lower(path), '\.[^./]*$', ''), '[/._-]+'))) as word
        from (select distinct path from changed)
    ) p
    semi join rules r on r.source = 'path' and r.keyword = p.word
),

path_words as (
    select w.repo, w.week_start, w.number, w.word
    from (
        select c.repo, c.week_start, c.number, h.word, count(*) as n
        from changed c
        join path_hits h using (path)
        group by c.repo, c.week_start, c.number, h.word
    ) w
    join files f using (repo, week_start, number)
    where w.n * 2 >= f.files
),

-- the description's prose: paragraphs that are not quotes, check lists, comments or code
-- (each regex runs only on the descriptions where a plain search finds its mark)
prose as (
    select
        repo, week_start, number,
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

-- the words and pairs of words the description's rules name, and the first words of the pairs
text_vocabulary as (
    select
        list(keyword) as keywords,
        list(distinct split_part(keyword, ' ', 1)) filter (where contains(keyword, ' ')) as pair_firsts
    from rules
    where source = 'text'
),

-- the description's words and pairs of words (hundreds a PR): only those a rule names, its
-- pairs made only after a pair's first word; split only where one of the words that start a
-- text rule is found as a plain substring (one regex of literals, a seventh of the split's cost)
ngrams as (
    select
        repo, week_start, number,
        list_filter(
            list_concat(b, list_transform(
                list_filter(range(1, len(b)), lambda i: list_contains(v.pair_firsts, b[i])),
                lambda i: b[i] || ' ' || b[i + 1])),
            lambda g: list_contains(v.keywords, g)
        ) as text_grams
    from (
        select
            repo, week_start, number,
            case when regexp_matches(body_text, {{ topic_text_words(ref('topic_rules')) }}) then
                list_filter(regexp_split_to_array(
                    -- headings left out (the regex only where there is a `#`)
                    case when contains(body_text, '#') then regexp_replace(body_text, '(?m)^\s*#.*$', '', 'g')
                        else body_text end,
                    '[^a-z0-9_+]+'), lambda x: x <> '')
            else [] end as b
        from prose
    )
    cross join text_vocabulary v
),

-- what each PR is, beside its words: its type, signal, version and files of one kind only
facts as (
    select
        c.repo, c.week_start, c.number,
        c.change_type,
        c.change_type_signal,
        c.title,
        coalesce(f.docs_only, false) as docs_only,
        coalesce(f.ci_only, false) as ci_only,
        coalesce(f.dependency_only, false) as dependency_only
    from classified c
    left join files f using (repo, week_start, number)
),

-- every word and fact of a PR a rule may name, one row each (`step`, the rule's rank: type,
-- title (title_hits), description, areas, paths, files): one join on (source, keyword)
tokens as (
    select repo, week_start, number, 'type' as source, change_type as token, 1 as step
    from facts where not docs_only
    union all
    select repo, week_start, number, 'signal', change_type_signal, 2 from facts
    union all
    select repo, week_start, number, 'text', unnest(text_grams), 3 from ngrams
    union all
    select repo, week_start, number, 'area', unnest(areas), 4 from classified
    union all
    select repo, week_start, number, 'path', word, 5 from path_words
    union all
    select repo, week_start, number, 'files', 'docs', 6 from facts where docs_only
    union all
    select repo, week_start, number, 'files', 'ci', 6 from facts where ci_only
    union all
    select repo, week_start, number, 'files', 'dependency', 6 from facts where dependency_only
),

-- a title keyword ending in `*` names any phrase of as many words that starts so (`qwen*`
-- names "qwen3", not "qwen3 vl"); the phrases are looked up by their first letters first
prefixes as (
    select
        topic,
        position,
        rtrim(keyword, '*') as prefix,
        length(keyword) - length(replace(keyword, ' ', '')) as spaces
    from rules
    where source = 'title' and ends_with(keyword, '*')
),

prefix_length as (
    select coalesce(min(length(prefix)), 0) as letters from prefixes
),

title_hits as (  -- the topics each distinct title names, by a keyword or a prefix
    select t.title, r.topic, r.position, 'the title says "' || t.token || '"' as evidence
    from (select title, unnest(title_grams) as token from {{ ref('int_pull_request_topic_titles') }}) t
    join rules r on r.source = 'title' and r.keyword = t.token
    union all
    select t.title, p.topic, p.position, 'the title says "' || t.token || '"'
    from (select title, unnest(title_grams) as token from {{ ref('int_pull_request_topic_titles') }}) t
    join prefixes p
        on left(t.token, (select letters from prefix_length)) = left(p.prefix, (select letters from prefix_length))
        and starts_with(t.token, p.prefix)
        and length(t.token) - length(replace(t.token, ' ', '')) = p.spaces
),

hits as (
    select t.repo, t.week_start, t.number, r.topic, r.position, t.step, case t.source
        when 'type' then 'the change type is ' || t.token
        when 'signal' then 'the change type came from ' || t.token
        when 'text' then 'the description says "' || t.token || '"'
        when 'area' then 'area ' || t.token
        when 'path' then 'changes a path with "' || t.token || '"'
        when 'files' then 'changes ' || t.token || ' files only'
    end as evidence
    from tokens t
    join rules r on r.source = t.source and r.keyword = t.token
    union all
    select p.repo, p.week_start, p.number, h.topic, h.position, 2, h.evidence
    from prs p join title_hits h using (title)
    union all
    select f.repo, f.week_start, f.number, r.topic, r.position, 2, 'the title names version ' || t.version
    from facts f
    join {{ ref('int_pull_request_topic_titles') }} t using (title)
    join rules r on r.source = 'version'
    where t.version is not null and f.change_type_signal <> 'title_release'
),

defaults as (
    select f.repo, f.week_start, f.number, r.topic, r.position, 7 as step,
        'the change type is ' || f.change_type || ' and nothing else named a topic' as evidence
    from facts f
    join rules r on r.source = 'default' and r.keyword = f.change_type
    anti join hits h using (repo, week_start, number)
),

final as (
    select
        p.repo,
        p.week_start,
        p.number,
        t.topic,
        min(t.position) as topic_position,
        -- the first step's evidence; within a step, the first in alphabetical order (the least
        -- of one key: a string of the two made for every hit cost more)
        arg_min(t.evidence, {'step': t.step, 'evidence': t.evidence}) filter (where t.evidence is not null)
            as evidence
    from (select * from hits union all select * from defaults) t
    join prs p using (repo, week_start, number)
    group by p.repo, p.week_start, p.number, t.topic
)

select * from final
