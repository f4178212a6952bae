/** Light, dark or the system's choice; remembered in localStorage and applied before first paint (app.html). */
export type Theme = 'light' | 'dark' | 'system';

class ThemeState {
  current = $state<Theme>('system');

  constructor() {
    if (typeof localStorage !== 'undefined') {
      const saved = localStorage.getItem('weft-theme');
      if (saved === 'light' || saved === 'dark') this.current = saved;
    }
  }

  set(theme: Theme) {
    this.current = theme;
    if (theme === 'system') {
      localStorage.removeItem('weft-theme');
      delete document.documentElement.dataset.theme;
    } else {
      localStorage.setItem('weft-theme', theme);
      document.documentElement.dataset.theme = theme;
    }
  }
}

export const theme = new ThemeState();
