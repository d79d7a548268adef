/** Where a value sits in a parsed face file: the keys and indexes from the document's root down to it. */
export type JsonPath = readonly (string | number)[];
