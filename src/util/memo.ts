/** One value per key, made on first use (metric series bound once per label value). */
export function memo<V>(make: (key: string) => V): (key: string) => V {
  const made = new Map<string, V>();
  return (key) => {
    let value = made.get(key);
    if (value === undefined) made.set(key, (value = make(key)));
    return value;
  };
}
