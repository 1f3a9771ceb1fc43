/**
 * Stop words (English, Russian, Chinese, Japanese, Korean), dropped from
 * plain-language queries only.
 * The index keeps every word, so a quoted phrase such as "state of the art" still
 * matches exactly; a question such as "what is the state of the art" searches
 * for `state OR art` instead of requiring every filler word.
 *
 * Compared against normalized words (lower case, ё→е), before stemming.
 */
const EN = `a about above after again against all am an and any are aren't as at be because been before being below
between both but by can cannot could did do does doing down during each few for from further had has have having he
her here hers herself him himself his how i if in into is it its itself just let me more most my myself no nor not
of off on once only or other ought our ours ourselves out over own same she should so some such than that the their
theirs them themselves then there these they this those through to too under until up very was we were what when
where which while who whom why will with would you your yours yourself yourselves s t don doesn didn isn wasn
also get got may might must shall vs etc per via tell show give explain describe`;

const RU = `а без более бы был была были было быть в вам вас весь во вот все всего всех вы где да даже для до его ее
если есть еще же за здесь и из или им их к как ко когда кто ли либо мне может мы на надо наш не него нее нет ни
них но ну о об однако он она они оно от очень по под при с со так также такой там те тем то того тоже той только
том ты у уже хотя чего чей чем что чтобы чье чья эта эти это я какой какая какие каким каких который которая
которые котором которых между ведь вдруг вообще всегда сейчас потом себя себе свой своя свои сам сама само сами
раз будет будут нужно можно мой моя мои твой ваш ей ему нам нас них тут куда зачем почему сколько чем`;

/**
 * Inflected forms of the pronouns, determiners and question words above (Russian
 * declines them, so a question says "какого", "этой", "которую"). Prepositions such
 * as "после" or "через" stay searchable: in "до, во время и после" they carry meaning.
 */
const RU_FORMS = `какого какому каком какую какое каков какова каковы которого которому которой которую которое которым
которыми этот этого этому этом эту этой этим этими тот того тому тех теми та ту весь всего всему всем всеми вся всю
всё свое своего своему своем свою своей своим своих своими мое моего моей моих твое твоего ваше вашего вашей ваши
ваших наша наше нашего нашей наши наших кого кому ком чему нибудь пусть лишь уж`;

/**
 * The frame of a Russian question, as English "do", "tell", "explain" are above:
 * "что делать, если…", "как сделать…", "объясните…" (one Russian dev question
 * more in the eval's top 5, holdout unchanged). Dropped from queries only
 * ({@link isQueryStopWord}): in a note's text ("делают", `similar`'s terms) they are words.
 */
const RU_FRAME = `делать сделать делает делают сделал сделали расскажи расскажите объясни объясните покажи покажите`;

/**
 * Chinese function words and question words, as Intl.Segmenter cuts a question
 * (面包要发酵多久 → 面包 要 发酵 多久): particles, pronouns, "how / what / how long".
 * Content words people put in questions (时间, 需要, 方法) are not here.
 */
const ZH = `的 了 吗 呢 吧 啊 呀 嘛 么 是 在 有 和 与 及 或 或者 而 但 但是 也 都 就 还 又 很 太 最 更 被 把 给 让 对 从 到 向 于
怎么 怎样 怎么样 如何 什么 哪些 哪个 哪 哪里 哪儿 为什么 为何 是否 有没有 是不是 可以 能 能够 会 要 应该 该 得 地 着 过
多 我 你 您 他 她 它 我们 你们 他们 她们 它们 自己 这 那 这个 那个 这些 那些 这样 那样 一个 一些 一下 多久 多少 多长 几 谁
请 请问 如果 因为 所以 之 其 个 些 中 上 下 里`;

/**
 * Japanese particles, copulas and question words (Intl.Segmenter splits them off:
 * 京都の紅葉はいつが見頃ですか → 京都 の 紅葉 は いつ が 見頃 です か).
 */
const JA = `は が を に で と の も へ から まで より など や か ね よ な だ です ます でした ました でしょう ある いる する します した
して い う れる られる こと もの ため よう どう どの どれ どこ いつ なに なん 何 なぜ 誰 だれ これ それ あれ この その あの
ください 教えて ですか ますか 何か 何を どうやって どのように どれくらい くらい ぐらい`;

/**
 * Korean question words and pronouns (Korean is spaced; the particles that attach
 * to words are stripped by the text pipeline, see text-pipeline.ts).
 */
const KO = `어떻게 무엇 무엇을 뭐 뭘 언제 왜 어디 어디서 누가 누구 얼마나 얼마 몇 어떤 어느 이것 그것 저것 이 그 저 나 너 우리
저는 제 내 것 수 및 또는 그리고 하나요 인가요 있나요 되나요 합니까 입니까 있습니까`;

export const STOP_WORDS: ReadonlySet<string> = new Set(
  `${EN} ${RU} ${RU_FORMS} ${ZH} ${JA} ${KO}`
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => w.replace(/ё/g, 'е')),
);

export function isStopWord(normalizedWord: string): boolean {
  return STOP_WORDS.has(normalizedWord);
}

const QUESTION_FRAME: ReadonlySet<string> = new Set(RU_FRAME.split(/\s+/).filter(Boolean));

/** A stop word, or a word that frames a question (`делать`, `объясните`): what a plain query drops. */
export function isQueryStopWord(normalizedWord: string): boolean {
  return STOP_WORDS.has(normalizedWord) || QUESTION_FRAME.has(normalizedWord);
}
