// Demo page for settling: each handler sets something going after the click returns.
const $ = (sel) => document.querySelector(sel);
const out = () => $('#out');

document.querySelectorAll('button[data-ms]').forEach((button) => {
  button.addEventListener('click', () => {
    const ms = Number(button.dataset.ms);
    setTimeout(() => { location.href = `/settle/done?ms=${ms}`; }, ms);
  });
});

$('#fetch')?.addEventListener('click', async () => {
  const data = await (await fetch('/api/settle-data')).json();
  const item = document.createElement('button');
  item.textContent = data.label;
  out().append(item);
});

$('#route')?.addEventListener('click', () => {
  history.pushState({}, '', '/settle/route');
  setTimeout(() => {
    const heading = document.createElement('h2');
    heading.textContent = 'Route page';
    const button = document.createElement('button');
    button.textContent = 'Route action';
    out().append(heading, button);
  }, 300);
});

$('#panel')?.addEventListener('click', () => {
  const drawer = $('#drawer');
  drawer.hidden = false;
  requestAnimationFrame(() => requestAnimationFrame(() => drawer.classList.add('open')));
  drawer.addEventListener('transitionend', () => {
    const button = document.createElement('button');
    button.textContent = 'Close the panel';
    drawer.append(button);
  }, {once: true});
});

$('#timer-login')?.addEventListener('submit', (event) => {
  event.preventDefault();
  document.cookie = 'settle_signed_in=1; path=/';
  setTimeout(() => { location.href = '/settle/mfa'; }, 150);
});
