{{ config(materialized='incremental') }}

-- What each merged pull request's own words say, each signal stored with the text that raised
-- it: the template's test box (checked, unchecked, absent) and its "Test" section, a sentence
-- saying no test was added, hardware named in the title or description, a breaking-change note,
-- the issues it closes, and the word naming what a fix fixes (a race, a crash, ...). Vocabularies
-- are in seeds/description_signals.csv, seeds/severity_words.csv and seeds/keywords.csv.
--
-- The change sentence (`summary`), the measured impact claims with the headline claim, and the
-- caveats are read by structure, by the Python function read_description
-- (orchestration/descriptions/, sql/functions.yml), once per description and with the same
-- seeds.
--
-- Its steps, each inlined here (ephemeral): int_pull_request_description_severity and
-- _vocabulary (the seeds' phrases), _titles (what each distinct title says), _texts (each PR's
-- title and description) and _lines (the description's kept lines, normalised, and the
-- signals it can hold). Words match whole (`arm` is not in `alarm`); each signal runs only
-- where its words occur, and each regex only where a plain search finds its literal.

-- the seeds read_description looks for, as `signal<TAB>phrase` lines (description signals and
-- the verbs that say what a change does, seeds/title_verbs.csv), loaded once: its key
with vocabulary_text as (
    select description_vocabulary(string_agg(signal || chr(9) || phrase, chr(10) order by signal, phrase)) as words
    from (
        select signal, phrase from {{ ref('description_signals') }}
        union all
        select 'change_verb' as signal, verb as phrase from {{ ref('title_verbs') }}
        where not anywhere and change_type not in ('docs', 'test')
        union all
        -- each caveat's subject and effect (orchestration/descriptions/caveat_details.py)
        select concat_ws('/', 'caveat_detail', kind, field, coalesce(value, ''), coalesce(better, '')) as signal, phrase
        from {{ ref('caveat_details') }}
    )
),

-- the change sentence, impact claims and caveats: one call a description
described as materialized (
    select
        p.repo,
        p.week_start,
        p.number,
        read_description(
            p.repo,
            p.title,
            p.title_words,
            p.body,
            v.words
        ) as d
    from {{ ref('int_pull_request_description_texts') }} p
    cross join vocabulary_text v
),

found as (
    select
        b.repo, b.week_start, b.number, b.title_hardware_word, b.title_severity_phrase,
        -- checklist boxes about tests
        case when b.has_boxes and b.has_test then
            list_filter(b.lines, lambda x: case when x.box <> '' then
                len(list_filter(v.test_box_words, lambda w: contains(x.norm, w))) > 0 else false end)
        else [] end as test_boxes,
        case when b.test_heading_at is not null then
            list_filter(b.lines, lambda x: x.i > b.test_heading_at and x.i < b.test_section_end)
        end as test_section_lines,
        case when b.has_test then
            list_filter(b.lines, lambda x: case when x.box = '' and contains(x.norm, 'test') then
                len(list_filter(v.no_test_phrases, lambda p: contains(x.norm, p))) > 0 else false end
            )[1].text
        end as no_test_line,
        -- the author's prose (not a checklist, not the Test section); a consequence inside a
        -- phrase that only looks like one ("regression test") is blanked out
        case when b.has_hardware or b.has_severity or b.has_breaking then
            list_transform(
                list_transform(
                    list_filter(b.lines, lambda x:
                        x.box = '' and not (x.i > coalesce(b.test_heading_at, 1000000) and x.i < b.test_section_end)),
                    lambda x: {'text': x.text, 'norm': x.norm, 'words': string_split(trim(x.norm), ' ')}),
                lambda x: {
                    'text': x.text,
                    'norm': x.norm,
                    'hardware': case when b.has_hardware then
                        len(list_filter(v.hardware_tokens, lambda w: list_contains(x.words, w))) > 0 else false end,
                    'breaking': case when b.has_breaking then
                        len(list_filter(v.breaking_tokens, lambda w: list_contains(x.words, w))) > 0 else false end,
                    'severity_norm': case
                        when b.has_severity
                             and len(list_filter(v.severity_tokens, lambda w: list_contains(x.words, w))) > 0
                            then list_reduce(v.severity_ignored, lambda acc, p: replace(acc, p, ' '), x.norm)
                        else ''
                    end
                })
        else [] end as prose,
        -- issues it closes: `Fixes #12`, `Closes owner/name#12`, a closing keyword and an issue URL
        case when contains(b.body, '#') or contains(b.body, '/issues/') then
            list_transform(
                regexp_extract_all(b.body,
                    '(?i)\b(?:fix(?:e[sd])?|close[sd]?|resolve[sd]?)\b\s*:?\s*((?:[\w.-]+/[\w.-]+)?#\d+|https?://github\.com/[\w.-]+/[\w.-]+/issues/\d+)',
                    1),
                lambda r: regexp_replace(r, '^https?://github\.com/([\w.-]+/[\w.-]+)/issues/(\d+)$', '\1#\2'))
        else [] end as linked_refs
    from {{ ref('int_pull_request_description_lines') }} b
    cross join {{ ref('int_pull_request_description_vocabulary') }} v
),

-- each signal's line, and its word: the earliest in the line, the longer phrase first
picked as (
    select
        f.repo, f.week_start, f.number, f.title_hardware_word, f.title_severity_phrase,
        -- each issue once, in the order the description names them
        list_filter(f.linked_refs, lambda r, i: not list_contains(f.linked_refs[1:i - 1], r)) as linked_issues,
        case
            when list_bool_or(list_transform(f.test_boxes, lambda x: x.box = 'x')) then 'checked'
            when len(f.test_boxes) > 0 then 'unchecked'
        end as test_box_state,
        list_filter(f.test_boxes, lambda x: x.box = ' ')[1].text as unchecked_box,
        case
            when f.test_section_lines is null then 'absent'
            when len(f.test_section_lines) = 0 then 'empty'
            else 'written'
        end as test_section,
        f.test_section_lines[1].text as test_section_line,
        f.no_test_line,
        list_filter(f.prose, lambda p: p.hardware)[1] as hardware_line,
        list_filter(f.prose, lambda p: case when p.breaking then
            len(list_filter(v.breaking_phrases, lambda w: contains(p.norm, w) and p.norm <> w)) > 0
            and len(list_filter(v.breaking_negations, lambda w: contains(p.norm, w))) = 0
            else false end
        )[1] as breaking_line,
        list_filter(f.prose, lambda p: case when p.severity_norm <> '' then
            len(list_filter(v.severity_phrases, lambda w: contains(p.severity_norm, w))) > 0 else false end
        )[1] as severity_line
    from found f
    cross join {{ ref('int_pull_request_description_vocabulary') }} v
),

worded as (
    select
        p.*,
        case when p.hardware_line is not null then
            trim(list_sort(list_transform(
                list_filter(v.hardware_words, lambda w: contains(p.hardware_line.norm, w)),
                lambda w: {'at': instr(p.hardware_line.norm, w), 'word': w}))[1].word)
        end as description_hardware_word,
        case when p.severity_line is not null then
            trim(list_sort(list_transform(
                list_filter(v.severity_phrases, lambda w: contains(p.severity_line.severity_norm, w)),
                lambda w: {'at': instr(p.severity_line.severity_norm, w) * 100 - length(w), 'word': w}))[1].word)
        end as description_severity_phrase
    from picked p
    cross join {{ ref('int_pull_request_description_vocabulary') }} v
),

-- The sentence around a word: the line split at sentence ends, the first part naming it.
-- Quoted text as a reader sees it: Markdown links, images, tags, emphasis, list, checkbox and
-- table markup and a template's trailing "...: ..." placeholder removed, whitespace collapsed.
quoted as (
    select
        w.*,
        case when coalesce(w.unchecked_box, w.test_section_line, w.no_test_line, w.hardware_line.text,
                           w.breaking_line.text, w.severity_line.text) is not null then list_transform(
            [
                w.unchecked_box,
                w.test_section_line,
                w.no_test_line,
                list_filter(regexp_split_to_array(w.hardware_line.text, '[.!?;]\s+'), lambda x:
                    contains(' ' || trim(regexp_replace(lower(x), '[^a-z0-9]+', ' ', 'g')) || ' ',
                             ' ' || w.description_hardware_word || ' '))[1],
                w.breaking_line.text,
                list_filter(regexp_split_to_array(w.severity_line.text, '[.!?;]\s+'), lambda x:
                    contains(' ' || trim(regexp_replace(lower(x), '[^a-z0-9]+', ' ', 'g')) || ' ',
                             ' ' || w.description_severity_phrase || ' '))[1]
            ],
            lambda x: case when x is not null then trim(
                regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace(
                    regexp_replace(x, '!\[[^\]]*\]\([^)]*\)|<[^>]*>', '', 'g'),
                    '\[([^\]]*)\]\([^)]*\)', '\1', 'g'),
                    '\*\*|__|`', '', 'g'),
                    '^\s*(([-*+]|\d+[.)])\s+(\[[ xX]\]\s*)?|([-*+]|\d+[.)])?\s*\[[ xX]\]\s*|#{1,6}\s*)', ''),
                    '^\s*\|\s*|\s*\|\s*$', '', 'g'),
                    '\s*[^.!?:]*:\s*(\.\.\.|…)\s*$', ''),
                    '\s+', ' ', 'g'))
            end)
        else [null, null, null, null, null, null] end as texts
    from worded w
),

-- a long quote is cut at a word before 240 characters
final as (
    select
        q.repo,
        q.week_start,
        q.number,
        q.test_box_state,
        case when q.test_box_state = 'unchecked' then
            case when length(q.texts[1]) > 240
                then regexp_extract(left(q.texts[1], 240), '^(.*)\s', 1) || '…' else q.texts[1] end
        end as test_box_text,
        q.test_section,
        nullif(q.texts[2], '') as test_section_text,
        case
            when q.no_test_line is not null then q.texts[3]
            when list_contains(
                (select no_test_answers from {{ ref('int_pull_request_description_vocabulary') }}),
                ' ' || trim(regexp_replace(lower(q.texts[2]), '[^a-z0-9]+', ' ', 'g')) || ' ')
                then q.texts[2]
        end as no_test_sentence,
        r.d.summary,
        r.d.summary_source,
        r.d.impact_claims,
        r.d.headline_claim,
        r.d.caveats,
        q.title_hardware_word,
        q.description_hardware_word,
        q.texts[4] as hardware_sentence,
        coalesce(q.texts[5], r.d.breaking_sentence) as breaking_note,
        coalesce(q.title_severity_phrase, q.description_severity_phrase) as severity_word,
        s.consequence as severity_consequence,
        case
            when q.title_severity_phrase is not null then 'title'
            when q.description_severity_phrase is not null then 'description'
        end as severity_source,
        case when q.title_severity_phrase is null then q.texts[6] end as severity_sentence,
        q.linked_issues
    from quoted q
    join described r on r.repo = q.repo and r.week_start = q.week_start and r.number = q.number
    left join {{ ref('int_pull_request_description_severity') }} s
        on s.phrase = ' ' || coalesce(q.title_severity_phrase, q.description_severity_phrase) || ' '
)

select * from final
