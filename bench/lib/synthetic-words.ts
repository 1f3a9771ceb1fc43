/**
 * Word stock for the synthetic vault. Real notes mix a small set of very common
 * words with a long tail of rare ones (names, jargon, typos); the FTS index size
 * and the BM25 statistics depend on that tail, so the generator adds invented
 * words built from these syllables to the common words below.
 */
import { int, type Rng } from './random.js';

export const EN_COMMON = `the of and to in is that for it as with was on be by this are or from at
an but not have has had were which you they we can will all their one there been if more when
would about what so up out into them some could time than only other new also then these two may
first any like now over such our most even made after many before must through back years where
much your way well down should because each just those people how too little state good very make
world still own see men work long get here between both life being under never day same another
know while last might great old year off come since against go came right used take three states
project meeting notes review plan budget team design release roadmap draft idea question answer
research reading book chapter summary source quote decision risk issue task deadline goal metric
server client database query index cache latency memory thread process deploy build test branch
garden recipe travel health sleep habit journal weekly monthly daily archive inbox someday later
customer contract invoice payment vendor hiring interview onboarding feedback retro sprint backlog
python typescript rust shell script function module package version config schema migration`
  .split(/\s+/)
  .filter(Boolean);

export const RU_COMMON = `и в не на я что он с как это по но из у за от то так все она мы же вы ты
к его для бы только было мне уже если или когда даже ещё да нет есть себя может время год день
работа проект заметка встреча план бюджет команда задача вопрос ответ решение срок цель идея
книга глава чтение источник цитата итог обзор риск проблема метрика релиз дизайн черновик
сервер клиент база запрос индекс кэш память поток процесс сборка тест ветка модуль пакет версия
сад рецепт путешествие здоровье сон привычка дневник неделя месяц архив входящие позже потом
клиент договор счёт оплата поставщик найм собеседование отзыв спринт бэклог ретроспектива
человек люди жизнь дом город страна мир вода земля слово дело глаз рука голова сторона место
хороший новый первый последний большой главный важный разный простой сложный быстрый медленный
думать знать делать сказать видеть хотеть писать читать помнить понимать начинать решать`
  .split(/\s+/)
  .filter(Boolean);

export const ZH_COMMON = `项目 会议 笔记 计划 预算 团队 设计 发布 路线 草稿 想法 问题 答案 研究 阅读
书籍 章节 总结 来源 引用 决定 风险 任务 截止 目标 指标 服务器 客户端 数据库 查询 索引 缓存
延迟 内存 线程 进程 部署 构建 测试 分支 花园 食谱 旅行 健康 睡眠 习惯 日记 每周 每月 每天
归档 收件箱 以后 客户 合同 发票 付款 供应商 招聘 面试 入职 反馈 冲刺 待办 我们 他们 这个
那个 什么 因为 所以 但是 如果 已经 可以 需要 应该 没有 时间 工作 生活 城市 国家 世界 学习
知识 方法 系统 管理 开发 用户 产品 市场 价格 质量 效率 文档 版本 配置 模块 函数 脚本`
  .split(/\s+/)
  .filter(Boolean);

const ONSETS = ['b', 'br', 'c', 'ch', 'd', 'dr', 'f', 'fl', 'g', 'gr', 'h', 'j', 'k', 'l', 'm', 'n', 'p', 'pl', 'qu', 'r', 's', 'sh', 'st', 't', 'th', 'tr', 'v', 'w', 'z'];
const NUCLEI = ['a', 'e', 'i', 'o', 'u', 'ai', 'ea', 'io', 'ou', 'y'];
const CODAS = ['', '', 'n', 'r', 's', 'l', 'm', 'nd', 'rt', 'st', 'x', 'ck'];

/**
 * Invented words ("brionel", "stoumack"): the long tail of a vocabulary. Made
 * from a fixed rng so every vault with the same seed shares the same lexicon.
 */
export function inventWords(rng: Rng, count: number): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  while (out.length < count) {
    let w = '';
    const syllables = int(rng, 2, 4);
    for (let s = 0; s < syllables; s++) {
      w += ONSETS[Math.floor(rng() * ONSETS.length)]! + NUCLEI[Math.floor(rng() * NUCLEI.length)]!;
    }
    w += CODAS[Math.floor(rng() * CODAS.length)]!;
    if (!seen.has(w)) {
      seen.add(w);
      out.push(w);
    }
  }
  return out;
}

export const CODE_LANGS = ['ts', 'python', 'bash', 'sql', 'json', 'rust'] as const;

/** Folder names at the top of a PARA-ish vault, as people actually name them. */
export const TOP_FOLDERS = ['Projects', 'Areas', 'Resources', 'Archive', 'Meetings', 'People', 'Reading', 'Inbox', 'Работа', '学习'];
