/**
 * The ranking's constants, chosen on the LoCoMo development split (see
 * docs/recall.md): each sits on a plateau, so
 * neighbouring values rank within about a point of recall of these.
 */
export const RANKING = Object.freeze({
  /** BM25's term-frequency saturation and length normalization. */
  k1: 1.2,
  b: 0.75,
  /**
   * The record length (in terms) BM25 normalizes against. Fixed rather than
   * the store's running average, so a score depends on nothing the store
   * holds but the term weights, and both stores agree.
   */
  averageTerms: 32,
  /**
   * Candidates per lane, and the best of them that lift their storage
   * neighbours, whatever k is: the ranking was chosen at this depth, and
   * with it a smaller k's answer is the head of a larger one's (k ≤ 100),
   * so lanes with different default k agree on which hit is best.
   */
  depth: 100,
  /** Weight of the BM25 score, as a share of the best candidate's. */
  bm25: 0.2,
  /** Weight of the share of the query's total term weight a record holds. */
  coverage: 0.4,
  /** Pseudo-relevance feedback: the best records of the first pass holding a query term, whose terms extend the query... */
  feedbackRecords: 10,
  /** ...the most frequent of their terms whose weights are looked up... */
  feedbackLookups: 64,
  /** ...the feedback terms kept, by frequency times weight... */
  feedbackTerms: 10,
  /** ...and the weight of the share of their total term weight a record holds. */
  feedback: 0.3,
  /**
   * Weight of the storage neighbours' lift: how far the better of a
   * candidate's neighbours (the best candidates stored nearest before and
   * after it in its scope) stands above the weakest of those best.
   */
  context: 0.4,
  /**
   * Added to that weight when the neighbour stored before a candidate asks
   * a question: the record after a question is most often its answer.
   */
  answer: 0.4,
  /** Taken from a record that asks a question: it holds no answer itself. */
  asking: 0.2,
  /**
   * Soft term matches: weight of the share of the query's term weight a
   * record holds not as the words themselves but as words near them in
   * meaning...
   */
  soft: 0.8,
  /** ...a word's nearness being its vector's cosine to the query word's, counted from this floor up to 1... */
  softFloor: 0.58,
  /** ...over the first this many distinct words of a record... */
  softRecordWords: 32,
  /** ...for the best this many candidates of the feedback pass (every one when k is at most the depth)... */
  softRecords: 200,
  /** ...and of the query... */
  softQueryWords: 16,
  /** ...those weighing at least this share of the heaviest query word. */
  softQueryShare: 0.5,
  /** A record holding every query term at this cosine or above is near-exact: no lift carries another past it. */
  nearCosine: 0.95,
  /** How far an exact or near-exact match is raised above the best score of the tier below it. */
  exactMargin: 0.01,
  /**
   * Term weights: for a store of N records, N / (N + this) of a term's
   * weight is the store's own; the rest is scaled by how rare the word is
   * in English (term-weights.ts).
   */
  priorRecords: 1000,
});
