(function () {
  var form = document.getElementById('upload');
  var input = document.getElementById('file');
  var button = document.getElementById('send');
  var bar = document.getElementById('progress');
  var status = document.getElementById('status');
  var max = Number(form.getAttribute('data-max-size'));
  var accept = (form.getAttribute('data-accept') || '').split(',').map(function (a) { return a.trim().toLowerCase(); }).filter(Boolean);
  function size(n) {
    var u = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'], i = 0;
    while (n >= 1024 && i < u.length - 1) { n /= 1024; i++; }
    return (i ? n.toFixed(1).replace(/\.0$/, '') : n) + ' ' + u[i];
  }
  function say(text, kind) { status.textContent = text; status.className = kind || ''; }
  function accepted(file) {
    if (!accept.length || !file.type) { return true; }
    var name = file.name.toLowerCase(), type = file.type.toLowerCase();
    var major = type.split('/')[0] + '/';
    return accept.some(function (a) {
      if (a === '*/*') { return true; }
      if (a.charAt(0) === '.') { return name.slice(-a.length) === a; }
      return type.indexOf(a.split('/')[0] + '/') === 0 || a.indexOf(major) === 0;
    });
  }
  function over(n) {
    var a = size(n), b = size(max);
    return a === b ? n + ' bytes, larger than the limit of ' + max + ' bytes' : a + ', larger than the limit of ' + b;
  }
  input.addEventListener('change', function () { say(''); });
  form.addEventListener('submit', function (e) {
    e.preventDefault();
    var file = input.files[0];
    if (!file) { say('Choose a file first.', 'error'); return; }
    if (file.size > max) { say(file.name + ' is ' + over(file.size) + '. Choose a smaller file.', 'error'); return; }
    if (!accepted(file)) { say(file.name + ' is not one of the accepted types. Choose another file.', 'error'); return; }
    var xhr = new XMLHttpRequest();
    xhr.open('POST', form.action);
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.upload.onprogress = function (ev) {
      if (ev.lengthComputable) { bar.max = ev.total; bar.value = ev.loaded; }
      say('Sent ' + size(Math.min(ev.loaded, file.size)) + ' of ' + size(file.size) + '.');
    };
    xhr.onload = function () {
      var r = {};
      try { r = JSON.parse(xhr.responseText); } catch (_) {}
      if (xhr.status === 201) {
        bar.value = bar.max;
        form.setAttribute('data-state', 'done');
        input.disabled = true;
        say('Upload complete (' + size(r.size) + '). You can close this page and go back to the application.', 'ok');
        return;
      }
      button.disabled = false;
      say(r.error || ('The upload failed (HTTP ' + xhr.status + ').'), 'error');
    };
    xhr.onerror = function () { button.disabled = false; say('The connection broke off. Try again.', 'error'); };
    button.disabled = true;
    bar.hidden = false;
    bar.value = 0;
    say('Sending ' + file.name + '…');
    xhr.send(new FormData(form));
  });
})();
