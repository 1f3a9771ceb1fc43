/**
 * English and Russian stop words, dropped from plain-language queries only.
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

export const STOP_WORDS: ReadonlySet<string> = new Set(
  `${EN} ${RU} ${RU_FORMS}`
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => w.replace(/ё/g, 'е')),
);

export function isStopWord(normalizedWord: string): boolean {
  return STOP_WORDS.has(normalizedWord);
}
